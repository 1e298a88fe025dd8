package dev.pubsubclickhouse.messages.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TruncateMarkTableTest {
  @Test
  void aReplicatedMarksTableIsWrittenWithAQuorumOneMarkAtATime() {
    assertThat(TruncateMarkTable.writeSettings("ReplicatedReplacingMergeTree"))
        .isEqualTo(Map.of("insert_quorum", "auto", "insert_quorum_parallel", "0"));
  }

  @Test
  void aSharedOrSingleServerMarksTableNeedsNoQuorum() {
    assertThat(TruncateMarkTable.writeSettings("SharedReplacingMergeTree")).isEmpty();
    assertThat(TruncateMarkTable.writeSettings("ReplacingMergeTree")).isEmpty();
  }
}
