package dev.pubsubclickhouse.function.pull;

import java.time.Duration;

/**
 * The pull mode's settings.
 *
 * @param subscription {@code projects/P/subscriptions/S}
 * @param shutdownGrace from SIGTERM to the process's exit: stop pulling, write what waits, ack or
 *     nack every message held
 */
public record PullSettings(String subscription, Duration shutdownGrace) {}
