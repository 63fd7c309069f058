/** The rddp command-line tool. */
module org.rddp.cli {
    requires org.rddp.rdmap;
}
