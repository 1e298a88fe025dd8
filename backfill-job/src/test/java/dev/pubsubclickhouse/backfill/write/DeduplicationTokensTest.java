package dev.pubsubclickhouse.backfill.write;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeduplicationTokensTest {
  @Test
  void theSameRowsOfTheSameSourceGiveTheSameToken() {
    String fingerprint = "table:p:ds.t@1767000000000";
    assertThat(new DeduplicationTokens(fingerprint).forRows(100, 200))
        .isEqualTo(new DeduplicationTokens(fingerprint).forRows(100, 200))
        .matches("bq-backfill:[0-9a-f]{20}:100-200");
  }

  @Test
  void aChangedSourceOrOtherRowsGiveAnotherToken() {
    DeduplicationTokens before = new DeduplicationTokens("table:p:ds.t@1767000000000");
    DeduplicationTokens after = new DeduplicationTokens("table:p:ds.t@1767000099999");
    assertThat(before.forRows(0, 50)).isNotEqualTo(after.forRows(0, 50));
    assertThat(before.forRows(0, 50)).isNotEqualTo(before.forRows(0, 51));
  }
}
