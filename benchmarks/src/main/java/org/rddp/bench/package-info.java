/** JMH benchmarks: segment encode/decode, MPA framing, and a verbs post/poll cycle over the in-memory LLP. */
package org.rddp.bench;
