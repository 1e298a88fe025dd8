package dev.pubsubclickhouse.replay;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which dead letters a replay takes: all of these that are given must hold.
 *
 * @param failedAfter when it failed, inclusive
 * @param failedBefore when it failed, exclusive
 * @param errorContains text the reason it failed contains (case-sensitive)
 * @param messageIds its message id is one of these (empty: any)
 */
public record DeadLetterFilter(
    Optional<Instant> failedAfter,
    Optional<Instant> failedBefore,
    Optional<String> errorContains,
    Set<String> messageIds) {

  public DeadLetterFilter {
    messageIds = Set.copyOf(messageIds);
    if (failedAfter.isPresent()
        && failedBefore.isPresent()
        && !failedAfter.get().isBefore(failedBefore.get())) {
      throw new IllegalArgumentException(
          "--failedAfter ("
              + failedAfter.get()
              + ") must be before --failedBefore ("
              + failedBefore.get()
              + "): no dead letter could match");
    }
  }

  public static DeadLetterFilter all() {
    return new DeadLetterFilter(Optional.empty(), Optional.empty(), Optional.empty(), Set.of());
  }

  /**
   * True when a dead letter that failed at {@code failedAt} for {@code error} (null: unknown, which
   * an error filter never matches) with {@code messageId} passes.
   */
  public boolean matches(Instant failedAt, String error, String messageId) {
    return failedAfter.map(after -> !failedAt.isBefore(after)).orElse(true)
        && failedBefore.map(failedAt::isBefore).orElse(true)
        && errorContains.map(text -> error != null && error.contains(text)).orElse(true)
        && (messageIds.isEmpty() || messageIds.contains(messageId));
  }

  /** For the line that says nothing matched: every condition, or "any". */
  public String describe() {
    List<String> parts = new ArrayList<>();
    failedAfter.ifPresent(t -> parts.add("failed at or after " + t));
    failedBefore.ifPresent(t -> parts.add("failed before " + t));
    errorContains.ifPresent(t -> parts.add("error containing \"" + t + "\""));
    if (!messageIds.isEmpty()) {
      parts.add("message id in " + messageIds.stream().sorted().toList());
    }
    return parts.isEmpty() ? "any dead letter" : String.join(", ", parts);
  }
}
