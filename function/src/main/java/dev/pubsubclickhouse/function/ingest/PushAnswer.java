package dev.pubsubclickhouse.function.ingest;

/**
 * What a push request is answered: how its message ended and, when it could not be written, why.
 *
 * @param reason the text its dead letter holds (or would hold, when no dead-letter sink is set) for
 *     a message {@link PushOutcome#DEAD_LETTERED} or {@link PushOutcome#UNPROCESSABLE}; null for
 *     every other outcome
 */
public record PushAnswer(PushOutcome outcome, String reason) {
  /** An answer that needs no reason. */
  public static PushAnswer of(PushOutcome outcome) {
    return new PushAnswer(outcome, null);
  }
}
