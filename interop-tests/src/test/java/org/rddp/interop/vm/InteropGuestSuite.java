package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rddp.check.MpaResponderChecks;

/**
 * Runs in the VM ({@link InteropVmTest}): {@code rddp interop} against Linux soft-iWARP on dummy0 — the MPA
 * initiator checks against rping's persistent server ({@code rping -s -P}), and the responder checks with rping's
 * client connecting once per case. Each case's verdict is compared with what siw is known to do; where siw departs
 * from the RFCs the expected verdict is FAIL and the reason is written next to it.
 */
class InteropGuestSuite {
    private static final String PORT = "7300";
    private static final String RESPOND_PORT = "7301";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long RPING_SECONDS = 20;

    /** siw's known departures from the RFCs, as initiator checks see them: case, why. */
    private static final Map<String, String> SIW_RESPONDER_FAILS = Map.of(
            "no-negotiation", "siw answers IRD/ORD 0x3FFF with its own limits (128) instead of echoing 0x3FFF",
            "pd-512", "siw caps private data at 256 octets and resets the connection",
            "s-bit-rev1", "siw's Rev 1 Reply echoes the S bit, a reserved bit in Rev 1",
            "s-bit-short", "siw rejects with a Reply that is itself malformed (S=1, PD_Length 0)",
            "crc-error", "siw's Terminate for the bad CRC carries layer/EType octet 0x02, not 0x20 (LLP, MPA)");
    /** siw's known departures, as responder checks see them. */
    private static final Map<String, String> SIW_INITIATOR_FAILS = Map.of(
            "ird-short", "siw clamps its IRD/ORD and sends its RTR instead of Terminate 0x2/0x0/0x06 (RFC 6581 §9.1)",
            "no-rtr", "siw's Terminate for no matching RTR carries layer/EType octet 0x02, not 0x20 (code 0x07 right)",
            "bad-key", "siw answers a Reply with a bad key with a Terminate FPDU (layer/EType octet 0x02 again) "
                    + "instead of closing",
            "pd-513", "siw keeps the connection open after a Reply with PD_Length 513");

    @Test
    void initiatorChecksAgainstSiwsRpingServer() throws Exception {
        SiwInteropGuestSuite.siw(SiwInteropGuestSuite.SIW_DEFAULTS);
        Process rping = SiwInteropGuestSuite.tool(List.of("rping", "-s", "-P", "-a", SiwInteropGuestSuite.ADDRESS,
                "-p", PORT));
        SiwInteropGuestSuite.awaitListening(Integer.parseInt(PORT), rping);
        String[] printed = new String[2];
        int status = SiwInteropGuestSuite.rddp(List.of("interop", SiwInteropGuestSuite.ADDRESS, "-p", PORT, "--wait",
                "3", "--json"), printed, null);
        SiwInteropGuestSuite.Outcome outcome = SiwInteropGuestSuite.finish(status, printed, kill(rping), 10);
        System.out.println("interop against rping -s -P on siw:\n" + outcome.all());
        judge(printed[0], 16, SIW_RESPONDER_FAILS);
    }

    @Test
    void responderChecksAgainstSiwsRpingClient() throws Exception {
        Map<String, String> parameters = new HashMap<>(SiwInteropGuestSuite.SIW_DEFAULTS);
        parameters.put("peer_to_peer", "Y"); // so that the no-matching-RTR case applies
        SiwInteropGuestSuite.siw(parameters);
        String[] printed = new String[2];
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Integer> checker = CompletableFuture.supplyAsync(() -> SiwInteropGuestSuite.rddp(List.of(
                "interop", "--respond", "-B", SiwInteropGuestSuite.ADDRESS, "-p", RESPOND_PORT, "--wait", "3",
                "--connect-wait", "60", "--json"), printed, listening, "interop: listening on"));
        listening.get(60, TimeUnit.SECONDS);
        List<String> clients = new ArrayList<>();
        for (int i = 0; i < MpaResponderChecks.CASES; i++) {
            Process rping = SiwInteropGuestSuite.tool(List.of("rping", "-c", "-a", SiwInteropGuestSuite.ADDRESS, "-p",
                    RESPOND_PORT, "-C", "1"));
            SiwInteropGuestSuite.Outcome client = SiwInteropGuestSuite.finish(0, new String[] {"", ""}, rping,
                    RPING_SECONDS);
            clients.add("rping -c #" + (i + 1) + " (" + client.rpingStatus() + "): " + client.rping().strip());
        }
        int status = checker.get(120, TimeUnit.SECONDS);
        System.out.println("interop --respond with rping -c on siw (" + status + "):\n" + printed[0] + printed[1]
                + "\n" + String.join("\n", clients));
        judge(printed[0], MpaResponderChecks.CASES, SIW_INITIATOR_FAILS);
    }

    private static Process kill(Process rping) {
        rping.destroy(); // the persistent server runs until told
        return rping;
    }

    /** Every case ran; each passed unless siw is known to depart there. */
    private static void judge(String json, int cases, Map<String, String> knownFails) throws Exception {
        JsonNode verdicts = JSON.readTree(json.substring(json.indexOf('{'))).get("cases"); // after the listening line
        assertThat(verdicts).hasSize(cases);
        for (JsonNode verdict : verdicts) {
            String id = verdict.get("id").asText();
            String expected = knownFails.containsKey(id) ? "FAIL" : "PASS";
            assertThat(verdict.get("outcome").asText()).as(id + ": " + verdict.get("observed").asText()
                    + (knownFails.containsKey(id) ? " (known: " + knownFails.get(id) + ")" : ""))
                    .isIn(expected, "NOT_APPLICABLE");
        }
    }
}
