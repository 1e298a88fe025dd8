package dev.pubsubclickhouse.function.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReturnTimeTest {
  private static final long MS = 1_000_000;
  private final ReturnTime returnTime = new ReturnTime(1000 * MS);

  @Test
  void beforeAnythingIsLearntThePatienceIsTwiceTheInsert() {
    assertThat(returnTime.patience(3 * MS)).isEqualTo(6 * MS);
  }

  @Test
  void itLearnsHowLongTheRequestsTakeToComeBack() {
    returnTime.allBack(8 * MS, 3 * MS);
    assertThat(returnTime.patience(3 * MS)).isEqualTo(16 * MS);
    returnTime.allBack(4 * MS, 3 * MS); // averaged with what it knew
    assertThat(returnTime.patience(3 * MS)).isEqualTo(12 * MS);
    // never less than twice the INSERT
    assertThat(returnTime.patience(10 * MS)).isEqualTo(20 * MS);
  }

  @Test
  void givingUpMeansTheyTakeLongerThanItWaited() {
    returnTime.allBack(2 * MS, MS);
    returnTime.gaveUp(4 * MS, MS);
    assertThat(returnTime.patience(MS)).isEqualTo(8 * MS);
  }

  @Test
  void aReturnLongAfterThePatienceIsAPauseInTheTrafficNotAReturnTime() {
    returnTime.allBack(60_000 * MS, 3 * MS);
    assertThat(returnTime.patience(3 * MS)).isEqualTo(6 * MS);
  }

  @Test
  void aBatchHeldFarLongerThanThePatienceTeachesNothing() {
    returnTime.allBack(4 * MS, 3 * MS);
    returnTime.gaveUp(10_000 * MS, 3 * MS); // held by its table's pace, or by a pause
    assertThat(returnTime.patience(3 * MS)).isEqualTo(8 * MS);
    returnTime.gaveUp(8 * MS, 3 * MS); // released by the patience: learnt
    assertThat(returnTime.patience(3 * MS)).isEqualTo(16 * MS);
  }

  @Test
  void thePatienceNeverPassesMaxWait() {
    returnTime.gaveUp(900 * MS, 700 * MS);
    returnTime.gaveUp(1800 * MS, 700 * MS);
    assertThat(returnTime.patience(MS)).isEqualTo(1000 * MS);
    assertThat(returnTime.patience(700 * MS)).isEqualTo(1000 * MS);
  }
}
