package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.encode.Utf8Bytes;
import java.util.List;

/**
 * What a push request is answered: how its message ended and, when it could not be written, why.
 *
 * @param reason the text its dead letter holds (or would hold, when no dead-letter sink is set) for
 *     a message {@link PushOutcome#DEAD_LETTERED} or {@link PushOutcome#UNPROCESSABLE}; null for
 *     every other outcome
 */
public record PushAnswer(PushOutcome outcome, String reason) {
  /** The most a reason's answer holds, in UTF-8 bytes with its newline. */
  public static final int MAX_REASON_BYTES = 1024;

  /**
   * Shorter credentials are not looked for in a reason: masking every "x" would garble it, and a
   * token that short guards nothing.
   */
  private static final int MIN_MASKED_CREDENTIALS = 8;

  /** An answer that needs no reason. */
  public static PushAnswer of(PushOutcome outcome) {
    return new PushAnswer(outcome, null);
  }

  /**
   * A reason as a push answer's body and the log line of either edge have it: what the dead-letter
   * table's {@code error_message} holds (the configured secrets already masked there), without the
   * request's own credentials, cut so that the body with its newline is at most {@link
   * #MAX_REASON_BYTES} (ending in "..." when cut, like the dead-letter topic's {@code
   * errorMessage}).
   *
   * @param authorization the request's Authorization header, or null (a pulled message has none)
   */
  public static String reasonText(String reason, String authorization) {
    String text = reason;
    if (authorization != null) {
      String credentials = authorization.strip();
      int space = credentials.indexOf(' ');
      for (String secret :
          space < 0
              ? List.of(credentials)
              : List.of(credentials, credentials.substring(space + 1).strip())) {
        if (secret.length() >= MIN_MASKED_CREDENTIALS) {
          text = text.replace(secret, "[redacted]");
        }
      }
    }
    return Utf8Bytes.clip(text, MAX_REASON_BYTES - 1);
  }
}
