package dev.pubsubclickhouse.core.log;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The trace a request belongs to, from the header Cloud Run (and Pub/Sub's push) sends: W3C {@code
 * traceparent}, else Google's {@code X-Cloud-Trace-Context}. Log lines written while the request is
 * served carry it, so Cloud Logging shows them beside the request and its trace.
 *
 * @param traceId 32 lower-case hex digits
 * @param spanId 16 lower-case hex digits, or null when the header names none
 */
public record RequestTrace(String traceId, String spanId, boolean sampled) {
  private static final Pattern TRACEPARENT =
      Pattern.compile("([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");
  private static final Pattern CLOUD_TRACE_CONTEXT =
      Pattern.compile("([0-9a-fA-F]{32})(?:/([0-9]{1,20}))?(?:;o=([01]))?");
  private static final String ZERO_TRACE = "0".repeat(32);
  private static final String ZERO_SPAN = "0".repeat(16);

  /** The trace of the request that sent these headers (either may be null); empty for none. */
  public static Optional<RequestTrace> from(String traceparent, String cloudTraceContext) {
    Optional<RequestTrace> w3c = fromTraceparent(traceparent);
    return w3c.isPresent() ? w3c : fromCloudTraceContext(cloudTraceContext);
  }

  static Optional<RequestTrace> fromTraceparent(String header) {
    if (header == null) {
      return Optional.empty();
    }
    Matcher m = TRACEPARENT.matcher(header.strip());
    if (!m.matches()
        || "ff".equals(m.group(1))
        || ZERO_TRACE.equals(m.group(2))
        || ZERO_SPAN.equals(m.group(3))) {
      return Optional.empty();
    }
    boolean sampled = (Integer.parseInt(m.group(4), 16) & 1) == 1;
    return Optional.of(new RequestTrace(m.group(2), m.group(3), sampled));
  }

  static Optional<RequestTrace> fromCloudTraceContext(String header) {
    if (header == null) {
      return Optional.empty();
    }
    Matcher m = CLOUD_TRACE_CONTEXT.matcher(header.strip());
    if (!m.matches() || ZERO_TRACE.equals(m.group(1))) {
      return Optional.empty();
    }
    String spanId = null;
    if (m.group(2) != null) {
      try {
        // Decimal there; Cloud Logging's spanId is 16 hex digits.
        spanId = String.format("%016x", Long.parseUnsignedLong(m.group(2)));
      } catch (NumberFormatException beyond64Bits) {
        spanId = null;
      }
    }
    return Optional.of(
        new RequestTrace(m.group(1).toLowerCase(Locale.ROOT), spanId, "1".equals(m.group(3))));
  }
}
