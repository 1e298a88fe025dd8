package dev.pubsubclickhouse.replay.subscription;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.core.SettableApiFuture;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The run's wait for a publish's answer, which the client library may never give. */
class PublishAnswerTest {
  @Test
  void aPublishNeverAnsweredFailsAtTheDeadline() {
    SettableApiFuture<String> never = SettableApiFuture.create();
    long start = System.nanoTime();

    assertThatThrownBy(
            () -> SubscriptionReplay.answer(never, start + Duration.ofMillis(200).toNanos()))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(TimeoutException.class)
        .hasMessage("no answer to a publish within 30 s");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void anAnsweredPublishGivesItsMessageIdAndAFailedOneItsCause() throws Exception {
    SettableApiFuture<String> answered = SettableApiFuture.create();
    answered.set("id-1");
    SettableApiFuture<String> failed = SettableApiFuture.create();
    IllegalStateException cause = new IllegalStateException("refused");
    failed.setException(cause);
    long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();

    assertThat(SubscriptionReplay.answer(answered, deadline)).isEqualTo("id-1");
    assertThatThrownBy(() -> SubscriptionReplay.answer(failed, deadline))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isSameAs(cause);
  }
}
