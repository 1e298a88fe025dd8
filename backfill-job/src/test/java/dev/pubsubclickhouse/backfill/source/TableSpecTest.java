package dev.pubsubclickhouse.backfill.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.bigquery.TableId;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableSpecTest {
  @Test
  void theTemplateFormsAreRead() {
    assertThat(TableSpec.parse("p:ds.t", Optional.empty())).isEqualTo(TableId.of("p", "ds", "t"));
    assertThat(TableSpec.parse("my-proj.ds.t", Optional.empty()))
        .isEqualTo(TableId.of("my-proj", "ds", "t"));
    assertThat(TableSpec.parse("example.com:proj:ds.t", Optional.empty()))
        .isEqualTo(TableId.of("example.com:proj", "ds", "t"));
    assertThat(TableSpec.parse("ds.t", Optional.of("default-proj")))
        .isEqualTo(TableId.of("default-proj", "ds", "t"));
  }

  @Test
  void theColonFormIsPrinted() {
    assertThat(TableSpec.format(TableId.of("p", "ds", "t"))).isEqualTo("p:ds.t");
  }
}
