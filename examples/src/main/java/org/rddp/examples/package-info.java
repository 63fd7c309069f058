/**
 * Small programs a user copies from, each a {@code main} and a method a test calls to see what it did. The
 * README's two samples are regions of {@link org.rddp.examples.WriteAndRead} and
 * {@link org.rddp.examples.ExsEchoServer}, between {@code // readme:...:begin} and {@code :end} comments.
 */
package org.rddp.examples;
