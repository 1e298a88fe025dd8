package dev.pubsubclickhouse.function.sinks;

import dev.pubsubclickhouse.core.errors.FailedRecord;
import dev.pubsubclickhouse.function.envelope.PushMessage;

/** A message (or one row of it) that cannot go to the target table, with why. */
public record FailedMessage(PushMessage message, FailedRecord record) {}
