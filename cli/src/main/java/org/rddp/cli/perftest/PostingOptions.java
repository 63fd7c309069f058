package org.rddp.cli.perftest;

import picocli.CommandLine.Option;

/**
 * How a bandwidth client posts its work requests, as perftest's options name it: {@code --cq-mod} (one request in N
 * signaled, the others completing unseen with it) and {@code --post-list} (N requests in one call). The perftest
 * commands and {@code rddp compare}'s RDDP Write series take them.
 */
public final class PostingOptions {
    @Option(names = "--cq-mod", defaultValue = "100", description = "bandwidth: signal one work request in this many "
            + "(the others complete with it, unseen), as perftest; default: ${DEFAULT-VALUE}")
    public int cqMod = PerfSession.Settings.CQ_MOD;

    @Option(names = "--post-list", defaultValue = "1", description = "bandwidth: post this many work requests in one "
            + "call, as perftest; default: ${DEFAULT-VALUE}")
    public int postList = 1;
}
