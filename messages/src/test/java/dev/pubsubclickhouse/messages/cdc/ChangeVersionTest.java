package dev.pubsubclickhouse.messages.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import org.junit.jupiter.api.Test;

class ChangeVersionTest {
  private static long mysql(ChangeVersion versions, String file, long pos, int row)
      throws PayloadRejectedException {
    return versions.of(
        "mysql",
        JsonNodes.parse("{\"file\":\"" + file + "\",\"pos\":" + pos + ",\"row\":" + row + "}"));
  }

  @Test
  void postgresVersionsAreTheLsn() throws Exception {
    assertThat(new ChangeVersion(0).of("postgresql", JsonNodes.parse("{\"lsn\":46523128}")))
        .isEqualTo(46523128L);
  }

  @Test
  void mysqlVersionsSortAsTheBinlogDoesAcrossRowsEventsAndFiles() throws Exception {
    ChangeVersion versions = new ChangeVersion(0);
    long[] inBinlogOrder = {
      mysql(versions, "mysql-bin.000003", 484, 0),
      mysql(versions, "mysql-bin.000003", 484, 1),
      mysql(versions, "mysql-bin.000003", 484, 57),
      mysql(versions, "mysql-bin.000003", 4_000_000_000L, 0),
      mysql(versions, "mysql-bin.000004", 4, 0),
      mysql(versions, "mysql-bin.999999", 4, 0),
    };
    for (int i = 1; i < inBinlogOrder.length; i++) {
      assertThat(Long.compareUnsigned(inBinlogOrder[i - 1], inBinlogOrder[i])).isNegative();
    }
    assertThat(inBinlogOrder[4]).isEqualTo((4L << 36) | 4);
  }

  @Test
  void aHigherEpochSortsAfterEveryPositionOfALowerOne() throws Exception {
    long old =
        new ChangeVersion(0).of("postgresql", JsonNodes.parse("{\"lsn\":72057594037927935}"));
    long restarted = new ChangeVersion(1).of("postgresql", JsonNodes.parse("{\"lsn\":0}"));
    assertThat(Long.compareUnsigned(old, restarted)).isNegative();
    long top = new ChangeVersion(255).of("postgresql", JsonNodes.parse("{\"lsn\":1}"));
    assertThat(Long.toUnsignedString(top)).isEqualTo("18374686479671623681"); // 255 * 2^56 + 1
  }

  @Test
  void positionsTooLargeToPackAreRefused() {
    assertThatThrownBy(
            () ->
                new ChangeVersion(0)
                    .of("postgresql", JsonNodes.parse("{\"lsn\":72057594037927936}")))
        .isInstanceOf(PayloadRejectedException.class)
        .hasMessage("source.lsn 72057594037927936 needs more than 56 bits");
    assertThatThrownBy(() -> mysql(new ChangeVersion(0), "mysql-bin.1048576", 4, 0))
        .hasMessage("source.file 'mysql-bin.1048576' does not end in a binlog index below 2^20");
    assertThatThrownBy(() -> mysql(new ChangeVersion(0), "binlog", 4, 0))
        .hasMessage("source.file 'binlog' does not end in a binlog index below 2^20");
    assertThatThrownBy(() -> new ChangeVersion(256)).isInstanceOf(IllegalArgumentException.class);
  }
}
