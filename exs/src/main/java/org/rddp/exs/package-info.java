/**
 * The Extended Sockets API (ES-API, The Open Group, 2005) as UNH-IOL built it over verbs ("A General-Purpose API
 * for iWARP and InfiniBand", R. D. Russell), over every transport of this stack: {@link org.rddp.exs.Exs} is
 * {@code exs_init}, {@link org.rddp.exs.ExsSocket} the socket, {@link org.rddp.exs.ExsQueue} the event queue.
 *
 * <h2>Wire format, version 2</h2>
 * Each message is one RDMA Send (untagged, RFC 5040 §4.3); octets in network order; reserved fields (R) are sent
 * as zero and ignored on receipt.
 * <pre>
 * Advertisement (32 octets, then Length octets of data when I is set)
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+---------------+-------------------------+-+-+-+
 * |  Version = 2  |   Type = 1    |            R            |N|P|I|
 * +---------------+---------------+-------------------------+-+-+-+
 * |                           Sequence                            |
 * +---------------------------------------------------------------+
 * |                      Length (0 to 2^31-1)                     |
 * +---------------------------------------------------------------+
 * |          STag (a memory window over exactly the block)        |
 * +---------------------------------------------------------------+
 * |                    Tagged Offset (64 bits)                    |
 * +---------------------------------------------------------------+
 * |         Placement (64 bits, 0 to 2^63-1; exs_send_offset)     |
 * +---------------------------------------------------------------+
 *
 * Acknowledgement (16 octets)
 * +---------------+---------------+-----------------------------+-+
 * |  Version = 2  |   Type = 2    |              R              |R|
 * +---------------+---------------+-----------------------------+-+
 * |               Sequence of the advertisement                   |
 * +---------------------------------------------------------------+
 * |                   Octets taken (or read, R)                   |
 * +-------------------------------+-------------------------------+
 * |  Status (0: taken, 1: no room)|  More (earlier ones answered) |
 * +-------------------------------+-------------------------------+
 *
 * Rearm (16 octets)
 * +---------------+---------------+-------------------------------+
 * |  Version = 2  |   Type = 3    |               R               |
 * +---------------+---------------+-------------------------------+
 * |          Sequence of the persistent advertisement             |
 * +---------------------------------------------------------------+
 * |                               R                               |
 * +---------------------------------------------------------------+
 * |                               R                               |
 * +---------------------------------------------------------------+
 *
 * Hello (12 octets of the connection's private data, each way)
 * +---------------+---------------+---------------+---------------+
 * |      'E'      |      'X'      |      'S'      |  Version = 2  |
 * +---------------+---------------+---------------+---------------+
 * |    Credits (advertisements held, 1 to 1,024)  |       R       |
 * +-------------------------------+-------------------------------+
 * |       Immediate octets one advertisement may carry here       |
 * +---------------------------------------------------------------+
 * </pre>
 * Sequence numbers start at 0 on each side and count advertisements; a receiver takes them in order. I: the data
 * follows the header (immediate data, section 4.1 of the paper); otherwise the receiver reads it with an RDMA Read
 * at STag and Tagged Offset, the STag being a memory window bound to exactly the block for this connection. An
 * acknowledgement of a block that was read is a Send with Invalidate of that STag, so the sender's window is gone
 * once it learns the data arrived; status 1 says the message did not fit where its Placement put it in the
 * receiver's persistent receive. More (version 2): the acknowledgement also answers that many advertisements just
 * before its own, each immediate and taken whole, status 0 (and R clear); a receiver that takes several immediate
 * messages in one pass answers them with one message. P: a persistent block (section 4.2), never acknowledged,
 * serving every receive from then on; with N the sender wants to hear of reads: the receiver sends an
 * acknowledgement with R set (the octets read since the last one), at most one outstanding per block, and the
 * sender answers each with a rearm.
 *
 * <h2>Credits</h2>
 * Both sides use the smaller of the two hellos' credits, C. A sender holds at most C advertisements without an
 * acknowledgement (a persistent one holds its credit for good); each side posts 2C receive buffers: a normal
 * advertisement holds its buffer until it is taken (C at most), and each of this side's advertisements has at most
 * one answer in flight to it (an acknowledgement or a read notification; C at most), while a persistent
 * advertisement gives its buffer back at once and has at most one rearm in flight. So no message ever finds no
 * buffer, and the acknowledgements a side owes never wait behind the advertisements it has not matched.
 */
package org.rddp.exs;
