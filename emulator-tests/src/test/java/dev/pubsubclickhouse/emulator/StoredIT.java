package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The waits the emulator tests rely on before they kill, compare or count. */
@ClickHouseTest
class StoredIT {
  private final TestDatabase database;

  StoredIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void rowsThatNeverCameFailTheWaitForThemNamingHowManyDid() {
    Stored stored = Stored.createTarget(Sql.of(database), "never_written");

    assertThatThrownBy(() -> stored.awaitAtLeast(1, Duration.ofMillis(300)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("never_written")
        .hasMessageContaining("0 of at least 1 rows");
  }

  @Test
  void rowsAlreadyThereEndTheWait() {
    Sql sql = Sql.of(database);
    Stored stored = Stored.createTarget(sql, "written");
    sql.query("INSERT INTO written (id, name, amount, at) VALUES (1, 'a', 1.5, now64(3))");

    assertThatCode(() -> stored.awaitAtLeast(1, Duration.ofSeconds(30))).doesNotThrowAnyException();
  }
}
