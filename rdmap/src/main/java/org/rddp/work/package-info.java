/**
 * The words the engine and the verbs share for work and its outcome, as the RDMAC verbs and libibverbs say them: what
 * a send-queue work request asks for ({@link org.rddp.work.WorkOpcode}), how it completed
 * ({@link org.rddp.work.WcStatus}), the queue pair's states ({@link org.rddp.work.QpState}) and its asynchronous
 * events ({@link org.rddp.work.QpEvent}). One set: the engine reports in them and users read them.
 */
package org.rddp.work;
