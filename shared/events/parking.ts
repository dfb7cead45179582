/**
 * Sweeps in a row, with no attempt recorded between them, after which a fan-out or a delivery is parked: the
 * worker fails on it before it can record anything (a poison message), so re-queuing it again would cycle
 * queue → dead-letter queue → sweeper forever. At one sweep a minute, about ten minutes of failures. Declared
 * here, in the event layer, so that the fan-out's wiring and the delivery service share it without the event
 * layer reaching into delivery.
 */
export const maxSweepsWithoutAttempt = 10;
