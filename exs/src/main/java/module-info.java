/**
 * The Extended Sockets API (ES-API, The Open Group; the UNH-EXS design): asynchronous sockets over registered memory
 * on any transport of this stack.
 */
module org.rddp.exs {
    requires transitive org.rddp.verbs;

    exports org.rddp.exs;
}
