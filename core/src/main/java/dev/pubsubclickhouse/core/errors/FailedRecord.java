package dev.pubsubclickhouse.core.errors;

import java.time.Instant;

/**
 * One message or row that could not be written to the target table, as the error table stores it.
 *
 * @param rawMessage the payload as UTF-8 text, or its base64 when it is not valid UTF-8
 */
public record FailedRecord(
    String rawMessage, String errorMessage, String stackTrace, Instant failedAt) {}
