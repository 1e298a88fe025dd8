package dev.pubsubclickhouse.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class RequestTraceTest {
  @Test
  void traceparentGivesTheTraceTheSpanAndTheSampledFlag() {
    assertThat(RequestTrace.from("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null))
        .contains(new RequestTrace("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", true));
    assertThat(RequestTrace.from("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", null))
        .contains(new RequestTrace("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", false));
  }

  @Test
  void cloudTraceContextGivesTheTraceAndItsDecimalSpanInHex() {
    assertThat(RequestTrace.from(null, "105445AA7843BC8BF206B12000100000/1;o=1"))
        .contains(new RequestTrace("105445aa7843bc8bf206b12000100000", "0000000000000001", true));
    assertThat(RequestTrace.from(null, "105445aa7843bc8bf206b12000100000/18446744073709551615;o=0"))
        .contains(new RequestTrace("105445aa7843bc8bf206b12000100000", "ffffffffffffffff", false));
    assertThat(RequestTrace.from(null, "105445aa7843bc8bf206b12000100000"))
        .contains(new RequestTrace("105445aa7843bc8bf206b12000100000", null, false));
  }

  @Test
  void traceparentWinsWhenBothAreSent() {
    assertThat(
            RequestTrace.from(
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "105445aa7843bc8bf206b12000100000/1;o=1"))
        .map(RequestTrace::traceId)
        .contains("4bf92f3577b34da6a3ce929d0e0e4736");
  }

  @Test
  void malformedOrAllZeroHeadersGiveNoTrace() {
    assertThat(RequestTrace.from(null, null)).isEmpty();
    assertThat(RequestTrace.from("00-" + "0".repeat(32) + "-00f067aa0ba902b7-01", null)).isEmpty();
    assertThat(
            RequestTrace.from(
                "00-4bf92f3577b34da6a3ce929d0e0e4736-" + "0".repeat(16) + "-01", null))
        .isEmpty();
    assertThat(RequestTrace.from("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null))
        .isEmpty();
    assertThat(RequestTrace.from("not a header", "nor/this")).isEqualTo(Optional.empty());
    assertThat(RequestTrace.from(null, "105445aa7843bc8bf206b12000100000/18446744073709551616"))
        .map(RequestTrace::spanId)
        .isEmpty();
  }
}
