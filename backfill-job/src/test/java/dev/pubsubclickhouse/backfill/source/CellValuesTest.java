package dev.pubsubclickhouse.backfill.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.bigquery.StandardSQLTypeName;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class CellValuesTest {
  @Test
  void aTimestampInMicrosecondsKeepsEveryMicrosecond() {
    assertThat(CellValues.scalar(StandardSQLTypeName.TIMESTAMP, "1768480496123456").textValue())
        .isEqualTo("2026-01-15T12:34:56.123456Z");
  }

  @Test
  void aTimestampAsFloatSecondsIsReadExactlyFromItsText() {
    assertThat(CellValues.scalar(StandardSQLTypeName.TIMESTAMP, "1.768480496123456E9").textValue())
        .isEqualTo("2026-01-15T12:34:56.123456Z");
    assertThat(CellValues.scalar(StandardSQLTypeName.TIMESTAMP, "-1.5E-5").textValue())
        .isEqualTo("1969-12-31T23:59:59.999985Z");
  }

  @Test
  void numericIsAnExactDecimal() {
    assertThat(
            CellValues.scalar(StandardSQLTypeName.BIGNUMERIC, "123456789012345678901234567890.5")
                .decimalValue())
        .isEqualTo(new BigDecimal("123456789012345678901234567890.5"));
  }

  @Test
  void int64IsALongAndBytesAreTheirDecodedBytes() throws Exception {
    assertThat(CellValues.scalar(StandardSQLTypeName.INT64, "-9223372036854775808").longValue())
        .isEqualTo(Long.MIN_VALUE);
    assertThat(CellValues.scalar(StandardSQLTypeName.BYTES, "AAEC").binaryValue())
        .containsExactly(0, 1, 2);
  }

  @Test
  void textThatDoesNotParseIsHandedToTheEncoderAsText() {
    assertThat(CellValues.scalar(StandardSQLTypeName.INT64, "12x").textValue()).isEqualTo("12x");
  }
}
