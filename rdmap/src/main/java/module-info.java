/**
 * Wire formats, the DDP/RDMAP engine (for the verbs only: users program against org.rddp.verbs), the
 * transport-neutral lower-layer SPI and the loops (org.rddp.loop) that run engines and own the I/O; and, for the
 * transports only, the C library's socket calls they share through java.lang.foreign (org.rddp.posix). The engine
 * opens no socket.
 */
@SuppressWarnings("module") // the engine is exported to the verbs, a module built after this one
module org.rddp.rdmap {
    exports org.rddp.error;
    exports org.rddp.wire;
    exports org.rddp.ddp;
    exports org.rddp.rdmap;
    exports org.rddp.mpa;
    exports org.rddp.sctp;
    exports org.rddp.llp;
    exports org.rddp.loop;
    exports org.rddp.work;
    exports org.rddp.engine to org.rddp.verbs;
    exports org.rddp.posix to org.rddp.transport.sctp, org.rddp.transport.mpa;

    requires org.jctools.core;
}
