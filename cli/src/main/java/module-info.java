/** The rddp command-line tool: perftest- and rping-style tools over either transport. */
@SuppressWarnings("requires-automatic") // XChart and Netty name their modules in their manifests only
module org.rddp.cli {
    requires transitive org.rddp.verbs;
    requires org.rddp.transport.mpa;
    requires org.rddp.transport.sctp;
    requires org.rddp.check;
    requires org.rddp.exs;
    requires jdk.management; // the benchmarks' CPU time per gigabyte
    requires jdk.sctp; // compare's baseline on a host with kernel SCTP: the JDK's SctpChannel
    requires info.picocli;
    requires com.fasterxml.jackson.databind;
    requires org.knowm.xchart;
    requires java.desktop; // the charts: XChart draws with AWT, and as an automatic module it requires nothing
    // compare's baseline on a host with kernel SCTP: Netty's SCTP transport, over the JDK's SctpChannel
    requires io.netty.transport.sctp;
    requires io.netty.transport;
    requires io.netty.codec;
    requires io.netty.buffer;
    requires io.netty.common;

    exports org.rddp.cli;
    // picocli reads and sets the commands' options; Jackson reads the results printed as JSON
    opens org.rddp.cli to info.picocli;
    opens org.rddp.cli.compare to info.picocli, com.fasterxml.jackson.databind;
    opens org.rddp.cli.demo to info.picocli;
    opens org.rddp.cli.exs to info.picocli, com.fasterxml.jackson.databind;
    opens org.rddp.cli.interop to info.picocli;
    opens org.rddp.cli.perftest to info.picocli, com.fasterxml.jackson.databind;
    opens org.rddp.cli.ping to info.picocli;
}
