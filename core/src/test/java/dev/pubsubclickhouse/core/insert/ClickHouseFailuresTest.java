package dev.pubsubclickhouse.core.insert;

import static org.assertj.core.api.Assertions.assertThat;

import com.clickhouse.client.api.ServerException;
import org.junit.jupiter.api.Test;

class ClickHouseFailuresTest {
  private static ServerException answer(int code, String text) {
    return new ServerException(code, "Code: " + code + ". DB::Exception: " + text, 500, null);
  }

  @Test
  void aReplicaThatHasNotFetchedAQuorumInsertYetIsAnOutageThatPasses() {
    // What a read with select_sequential_consistency = 1 gets from a replica behind the quorum.
    assertThat(
            ClickHouseFailures.classify(
                answer(
                    289,
                    "Replica doesn't have part all_1_1_0 which was successfully written to quorum"
                        + " of other replicas. (REPLICA_IS_NOT_IN_QUORUM)")))
        .isEqualTo(FailureKind.TRANSIENT);
  }

  @Test
  void aSettingTheUsersProfileForbidsIsNeverTheRows() {
    assertThat(
            ClickHouseFailures.classify(
                answer(
                    452,
                    "Setting select_sequential_consistency should not be changed."
                        + " (SETTING_CONSTRAINT_VIOLATION)")))
        .isEqualTo(FailureKind.NOT_THE_ROWS);
  }
}
