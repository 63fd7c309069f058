/**
 * Wire formats and (from the engine issue on) the DDP/RDMAP engine and the transport-neutral lower-layer SPI.
 * Nothing here opens a socket.
 */
module org.rddp.rdmap {
    exports org.rddp.error;
    exports org.rddp.wire;
    exports org.rddp.ddp;
    exports org.rddp.rdmap;
    exports org.rddp.mpa;
    exports org.rddp.sctp;
    exports org.rddp.llp;
    exports org.rddp.loop;
    exports org.rddp.engine;

    requires org.jctools.core;
}
