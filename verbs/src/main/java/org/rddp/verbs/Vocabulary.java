package org.rddp.verbs;

/**
 * The engine's words for work, outcomes, states and events, as the verbs say them to users: the engine
 * ({@code org.rddp.engine}, not exported) has its own enums with the same constants in the same order, so each maps by
 * its ordinal; a test holds the two lists equal. Allocates nothing.
 */
final class Vocabulary {
    private static final WcStatus[] STATUSES = WcStatus.values();
    private static final QpState[] STATES = QpState.values();
    private static final QpEvent[] EVENTS = QpEvent.values();
    private static final org.rddp.engine.WorkOpcode[] OPERATIONS = org.rddp.engine.WorkOpcode.values();

    private Vocabulary() {
    }

    static WcStatus status(org.rddp.engine.WcStatus status) {
        return STATUSES[status.ordinal()];
    }

    static QpState state(org.rddp.engine.QpState state) {
        return STATES[state.ordinal()];
    }

    static QpEvent event(org.rddp.engine.QpEvent event) {
        return EVENTS[event.ordinal()];
    }

    static org.rddp.engine.WorkOpcode operation(WorkOpcode opcode) {
        return OPERATIONS[opcode.ordinal()];
    }
}
