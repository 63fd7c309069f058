-- rddp.lua: a Wireshark dissector for what Wireshark does not decode today
--   * DDP/RDMAP carried over SCTP (RFC 5043): PPID 16, the DDP Segment chunk (DDP-SSN + DDP segment)
--   * DDP Stream Session Control over SCTP: PPID 17, every function code of RFC 5043 and RFC 6581 (1-7),
--     with the enhanced IRD/ORD/peer-to-peer block of codes 5-7
--   * MPA Request/Reply frames of revision 2 (RFC 6581 §6), enhanced data included, and the FPDUs that follow
--     them on the same TCP connection when Markers are off (ULPDU_Length, DDP/RDMAP segment, PAD, CRC)
--
-- Use: tshark -X lua_script:wireshark/rddp.lua ...; SCTP over UDP (RFC 6951) on a port other than 9899 needs
-- "-d udp.port==PORT,sctp". The built-in iwarp_mpa heuristic also claims MPA frames; this one registers first
-- for revision 2 and for the FPDUs of the connections it saw start.

local ddp_sctp = Proto("rddp_sctp", "DDP over SCTP (RFC 5043)")
local mpa = Proto("rddp_mpa", "MPA with enhanced setup (RFC 5044, RFC 6581)")

local opcodes = {
    [0] = "RDMA Write", [1] = "RDMA Read Request", [2] = "RDMA Read Response", [3] = "Send",
    [4] = "Send with Invalidate", [5] = "Send with Solicited Event",
    [6] = "Send with Solicited Event and Invalidate", [7] = "Terminate",
}
local functions = {
    [1] = "DDP Stream Session Initiate", [2] = "DDP Stream Session Accept", [3] = "DDP Stream Session Reject",
    [4] = "DDP Stream Session Terminate", [5] = "Enhanced DDP Stream Session Initiate",
    [6] = "Enhanced DDP Stream Session Accept", [7] = "Enhanced DDP Stream Session Reject",
}
local layers = { [0] = "RDMAP", [1] = "DDP", [2] = "LLP (MPA)" }

local f = {
    ssn = ProtoField.uint16("rddp.ddp_ssn", "DDP-SSN", base.DEC),
    fcode = ProtoField.uint16("rddp.function", "Function code", base.HEX, functions),
    pdata = ProtoField.bytes("rddp.private_data", "Private data"),
    pd_length = ProtoField.uint16("rddp.pd_length", "Private data length", base.DEC),
    -- enhanced connection data (RFC 6581 §9)
    p2p = ProtoField.bool("rddp.enh.peer_to_peer", "A: peer-to-peer", 16, nil, 0x8000),
    send_rtr = ProtoField.bool("rddp.enh.send_rtr", "B: zero-length Send RTR", 16, nil, 0x4000),
    ird = ProtoField.uint16("rddp.enh.ird", "IRD", base.DEC, nil, 0x3FFF),
    write_rtr = ProtoField.bool("rddp.enh.write_rtr", "C: zero-length RDMA Write RTR", 16, nil, 0x8000),
    read_rtr = ProtoField.bool("rddp.enh.read_rtr", "D: zero-length RDMA Read RTR", 16, nil, 0x4000),
    ord = ProtoField.uint16("rddp.enh.ord", "ORD", base.DEC, nil, 0x3FFF),
    -- DDP (RFC 5041 §4) and RDMAP (RFC 5040 §4)
    tagged = ProtoField.bool("rddp.ddp.tagged", "T: tagged", 8, nil, 0x80),
    last = ProtoField.bool("rddp.ddp.last", "L: last", 8, nil, 0x40),
    dv = ProtoField.uint8("rddp.ddp.version", "DDP version", base.DEC, nil, 0x03),
    rv = ProtoField.uint8("rddp.rdmap.version", "RDMAP version", base.DEC, nil, 0xC0),
    opcode = ProtoField.uint8("rddp.rdmap.opcode", "RDMAP opcode", base.DEC, opcodes, 0x0F),
    stag = ProtoField.uint32("rddp.ddp.stag", "STag", base.HEX),
    to = ProtoField.uint64("rddp.ddp.to", "Tagged offset", base.HEX),
    qn = ProtoField.uint32("rddp.ddp.qn", "Queue number", base.DEC),
    msn = ProtoField.uint32("rddp.ddp.msn", "Message sequence number", base.DEC),
    mo = ProtoField.uint32("rddp.ddp.mo", "Message offset", base.DEC),
    payload = ProtoField.uint32("rddp.ddp.payload_length", "Payload length", base.DEC),
    sink_stag = ProtoField.uint32("rddp.rdmap.sink_stag", "Data sink STag", base.HEX),
    sink_to = ProtoField.uint64("rddp.rdmap.sink_to", "Data sink tagged offset", base.HEX),
    read_size = ProtoField.uint32("rddp.rdmap.read_size", "RDMA Read message size", base.DEC),
    src_stag = ProtoField.uint32("rddp.rdmap.source_stag", "Data source STag", base.HEX),
    src_to = ProtoField.uint64("rddp.rdmap.source_to", "Data source tagged offset", base.HEX),
    term_layer = ProtoField.uint8("rddp.term.layer", "Terminate layer", base.HEX, layers, 0xF0),
    term_etype = ProtoField.uint8("rddp.term.etype", "Terminate error type", base.HEX, nil, 0x0F),
    term_code = ProtoField.uint8("rddp.term.code", "Terminate error code", base.HEX),
    -- MPA (RFC 5044 §7.1.1, §4.1)
    key = ProtoField.string("rddp.mpa.key", "Key"),
    m = ProtoField.bool("rddp.mpa.markers", "M: Markers wanted", 8, nil, 0x80),
    c = ProtoField.bool("rddp.mpa.crc", "C: CRC wanted", 8, nil, 0x40),
    r = ProtoField.bool("rddp.mpa.reject", "R: rejected", 8, nil, 0x20),
    s = ProtoField.bool("rddp.mpa.enhanced", "S: enhanced data follows", 8, nil, 0x10),
    res = ProtoField.uint8("rddp.mpa.reserved", "Res", base.HEX, nil, 0x0F),
    rev = ProtoField.uint8("rddp.mpa.revision", "Rev", base.DEC),
    ulpdu_length = ProtoField.uint16("rddp.mpa.ulpdu_length", "ULPDU_Length", base.DEC),
    crc = ProtoField.uint32("rddp.mpa.crc_field", "CRC (least significant octet first)", base.HEX),
}
local list = {}
for _, field in pairs(f) do
    list[#list + 1] = field
end
ddp_sctp.fields = list

local function enhanced_data(tvb, tree, offset)
    local block = tree:add(ddp_sctp, tvb(offset, 4), "Enhanced connection data (RFC 6581 §9)")
    block:add(f.p2p, tvb(offset, 2))
    block:add(f.send_rtr, tvb(offset, 2))
    block:add(f.ird, tvb(offset, 2))
    block:add(f.write_rtr, tvb(offset + 2, 2))
    block:add(f.read_rtr, tvb(offset + 2, 2))
    block:add(f.ord, tvb(offset + 2, 2))
    return string.format("IRD %d ORD %d%s", bit32.band(tvb(offset, 2):uint(), 0x3FFF), bit32.band(tvb(offset + 2, 2):uint(), 0x3FFF),
        bit32.band(tvb(offset, 2):uint(), 0x8000) ~= 0 and " peer-to-peer" or "")
end

-- One DDP segment (with its RDMAP header); returns a one-line summary.
local function ddp_segment(tvb, pinfo, tree, offset, length)
    if length < 2 then
        return "truncated DDP segment"
    end
    local seg = tree:add(ddp_sctp, tvb(offset, length), "DDP/RDMAP segment")
    local control = tvb(offset, 1):uint()
    local op = bit32.band(tvb(offset + 1, 1):uint(), 0x0F)
    seg:add(f.tagged, tvb(offset, 1))
    seg:add(f.last, tvb(offset, 1))
    seg:add(f.dv, tvb(offset, 1))
    seg:add(f.rv, tvb(offset + 1, 1))
    seg:add(f.opcode, tvb(offset + 1, 1))
    local name = opcodes[op] or ("opcode " .. op)
    if bit32.band(control, 0x80) ~= 0 then
        if length < 14 then
            return name .. " (truncated)"
        end
        seg:add(f.stag, tvb(offset + 2, 4))
        seg:add(f.to, tvb(offset + 6, 8))
        seg:add(f.payload, length - 14):set_generated()
        return string.format("%s STag 0x%08x, %d octets", name, tvb(offset + 2, 4):uint(), length - 14)
    end
    if length < 18 then
        return name .. " (truncated)"
    end
    seg:add(f.stag, tvb(offset + 2, 4))
    seg:add(f.qn, tvb(offset + 6, 4))
    seg:add(f.msn, tvb(offset + 10, 4))
    seg:add(f.mo, tvb(offset + 14, 4))
    local qn = tvb(offset + 6, 4):uint()
    if op == 1 and qn == 1 and length >= 46 then
        seg:add(f.sink_stag, tvb(offset + 18, 4))
        seg:add(f.sink_to, tvb(offset + 22, 8))
        seg:add(f.read_size, tvb(offset + 30, 4))
        seg:add(f.src_stag, tvb(offset + 34, 4))
        seg:add(f.src_to, tvb(offset + 38, 8))
        return string.format("%s of %d octets", name, tvb(offset + 30, 4):uint())
    end
    if op == 7 and length >= 22 then
        seg:add(f.term_layer, tvb(offset + 18, 1))
        seg:add(f.term_etype, tvb(offset + 18, 1))
        seg:add(f.term_code, tvb(offset + 19, 1))
        local first = tvb(offset + 18, 1):uint()
        return string.format("Terminate %s 0x%x/0x%x/0x%02x", layers[bit32.rshift(first, 4)] or "?", bit32.rshift(first, 4), bit32.band(first, 0x0F),
            tvb(offset + 19, 1):uint())
    end
    seg:add(f.payload, length - 18):set_generated()
    return string.format("%s MSN %d, %d octets", name, tvb(offset + 10, 4):uint(), length - 18)
end

-- PPID 16: DDP Segment chunk. PPID 17: session control.
local function sctp_ddp(tvb, pinfo, tree)
    pinfo.cols.protocol = "DDP/SCTP"
    local subtree = tree:add(ddp_sctp, tvb(), "DDP Segment chunk (RFC 5043 §5.2.1)")
    subtree:add(f.ssn, tvb(0, 2))
    pinfo.cols.info:append(" " .. ddp_segment(tvb, pinfo, subtree, 2, tvb:len() - 2))
end

local function sctp_session_control(tvb, pinfo, tree)
    pinfo.cols.protocol = "DDP/SCTP"
    local subtree = tree:add(ddp_sctp, tvb(), "DDP Stream Session Control (RFC 5043 §5.2.3)")
    subtree:add(f.ssn, tvb(0, 2))
    subtree:add(f.fcode, tvb(2, 2))
    local code = tvb(2, 2):uint()
    local info = functions[code] or string.format("function 0x%04x", code)
    local offset = 4
    if code >= 5 and code <= 7 and tvb:len() >= 8 then
        info = info .. ", " .. enhanced_data(tvb, subtree, offset)
        offset = offset + 4
    end
    if tvb:len() > offset then
        subtree:add(f.pdata, tvb(offset))
    end
    subtree:add(f.pd_length, tvb:len() - offset):set_generated()
    pinfo.cols.info:append(" " .. info)
end

local ddp_chunk = Proto("rddp_sctp_ddp", "DDP Segment chunk")
ddp_chunk.dissector = sctp_ddp
local control_chunk = Proto("rddp_sctp_control", "DDP Session Control chunk")
control_chunk.dissector = sctp_session_control
DissectorTable.get("sctp.ppi"):add(16, ddp_chunk)
DissectorTable.get("sctp.ppi"):add(17, control_chunk)

-- MPA: startup frames, then FPDUs (no Markers) on the TCP connections seen starting.
mpa.fields = {}
local tcp_stream = Field.new("tcp.stream")
local full_operation = {} -- tcp.stream -> { [1] = markers towards the initiator, [2] = towards the responder }

local function startup_frame(tvb, pinfo, tree)
    local key = tvb(0, 16):string()
    local subtree = tree:add(mpa, tvb(), key == "MPA ID Req Frame" and "MPA Request" or "MPA Reply")
    subtree:add(f.key, tvb(0, 16))
    subtree:add(f.m, tvb(16, 1))
    subtree:add(f.c, tvb(16, 1))
    subtree:add(f.r, tvb(16, 1))
    subtree:add(f.s, tvb(16, 1))
    subtree:add(f.res, tvb(16, 1))
    subtree:add(f.rev, tvb(17, 1))
    subtree:add(f.pd_length, tvb(18, 2))
    local flags = tvb(16, 1):uint()
    local rev = tvb(17, 1):uint()
    local pd = tvb(18, 2):uint()
    local info = string.format("%s rev %d%s%s%s", key == "MPA ID Req Frame" and "MPA Request" or "MPA Reply", rev,
        bit32.band(flags, 0x80) ~= 0 and " M" or "", bit32.band(flags, 0x40) ~= 0 and " C" or "",
        bit32.band(flags, 0x20) ~= 0 and " R" or "")
    local offset = 20
    if rev >= 2 and bit32.band(flags, 0x10) ~= 0 and pd >= 4 then
        info = info .. " S, " .. enhanced_data(tvb, subtree, offset)
        offset = offset + 4
    end
    if 20 + pd > offset then
        subtree:add(f.pdata, tvb(offset, 20 + pd - offset))
    end
    pinfo.cols.protocol = "MPA"
    pinfo.cols.info = info
    local stream = tcp_stream()
    if stream then
        local state = full_operation[stream.value] or {}
        state[key == "MPA ID Req Frame" and 1 or 2] = bit32.band(flags, 0x80) ~= 0
        full_operation[stream.value] = state
    end
    return 20 + pd
end

local function fpdus(tvb, pinfo, tree)
    local offset = 0
    local summaries = {}
    while offset + 2 <= tvb:len() do
        local length = tvb(offset, 2):uint()
        local padded = 2 + length + ((4 - ((2 + length) % 4)) % 4)
        if offset + padded + 4 > tvb:len() then
            pinfo.desegment_offset = offset
            pinfo.desegment_len = offset + padded + 4 - tvb:len()
            break
        end
        local fpdu = tree:add(mpa, tvb(offset, padded + 4), "MPA FPDU")
        fpdu:add(f.ulpdu_length, tvb(offset, 2))
        summaries[#summaries + 1] = ddp_segment(tvb, pinfo, fpdu, offset + 2, length)
        fpdu:add_le(f.crc, tvb(offset + padded, 4))
        offset = offset + padded + 4
    end
    pinfo.cols.protocol = "MPA"
    pinfo.cols.info = table.concat(summaries, "; ")
    return offset
end

local function heuristic(tvb, pinfo, tree)
    if tvb:len() >= 20 then
        local key = tvb(0, 16):string()
        if key == "MPA ID Req Frame" or key == "MPA ID Rep Frame" then
            startup_frame(tvb, pinfo, tree)
            return true
        end
    end
    local stream = tcp_stream()
    local state = stream and full_operation[stream.value]
    if state and state[1] ~= nil and state[2] ~= nil and not state[1] and not state[2] and tvb:len() >= 6 then
        fpdus(tvb, pinfo, tree)
        return true
    end
    return false
end

mpa:register_heuristic("tcp", heuristic)
