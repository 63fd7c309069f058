package org.rddp.transport.sctp;

import java.io.IOException;
import java.util.List;
import org.rddp.transport.sctp.kernel.KernelSctpStack;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;

/** The SCTP backends by name, and the one to use where none is named: the kernel's if it has SCTP, else usrsctp. */
public final class SctpStacks {
    /** The names {@link #byName} knows. */
    public static final List<String> NAMES = List.of("auto", "kernel", "usrsctp", "usrsctp-udp", "usrsctp-native");

    private SctpStacks() {
    }

    /**
     * The backend called {@code name}: {@code kernel} (Linux SCTP), {@code usrsctp} or {@code usrsctp-udp} (usrsctp,
     * SCTP over UDP), {@code usrsctp-native} (usrsctp, SCTP over raw IP: root), {@code auto} ({@link #preferred}).
     * A backend this machine cannot run fails with why and what to do.
     */
    public static SctpStack byName(String name) throws IOException {
        return switch (name) {
            case "auto" -> preferred();
            case "kernel" -> KernelSctpStack.open();
            case "usrsctp", "usrsctp-udp" -> UsrsctpStack.udp();
            case "usrsctp-native" -> UsrsctpStack.nativeIp();
            default -> throw new IllegalArgumentException("no SCTP backend called '" + name + "'; there are "
                    + String.join(", ", NAMES));
        };
    }

    /**
     * The kernel's SCTP where the kernel has it (and lksctp-tools' library is installed), else usrsctp over UDP. The
     * first choice in a process is said on standard error, once, with why the other was not taken.
     */
    public static SctpStack preferred() throws IOException {
        String why = KernelSctpStack.unavailable();
        tell(choice(why));
        return why == null ? KernelSctpStack.open() : UsrsctpStack.udp();
    }

    /** What {@link #preferred} says of its choice, {@code why} the kernel's SCTP cannot be used (null: it can). */
    static String choice(String why) {
        return why == null ? "rddp: using the kernel's SCTP (it answers an SCTP socket)"
                : "rddp: " + why + "; using usrsctp over UDP";
    }

    private static final java.util.concurrent.atomic.AtomicBoolean TOLD =
            new java.util.concurrent.atomic.AtomicBoolean();

    private static void tell(String choice) {
        if (TOLD.compareAndSet(false, true)) {
            System.err.println(choice);
        }
    }
}
