package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.testing.JarNatives.AARCH64;
import static dev.pubsubclickhouse.testing.JarNatives.X86_64;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.JarNatives;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * function.jar runs on linux/amd64 (Cloud Run) and linux/arm64 (GKE Arm pods, Axion VMs) from one
 * multi-arch image: every native library it loads is in the jar for both, built for that CPU.
 * scripts/arm64-check runs the jar on arm64 under qemu and sees the aarch64 LZ4 library loaded.
 */
class ShadedJarNativesIT {
  private static final Map<String, Integer> NATIVES =
      JarNatives.elfMachines(Path.of(System.getProperty("function.jar")));

  @Test
  void lz4AndZstdForClickHouseAreThereForBothArchitectures() {
    assertThat(NATIVES)
        .containsEntry("net/jpountz/util/linux/aarch64/liblz4-java.so", AARCH64)
        .containsEntry("net/jpountz/util/linux/amd64/liblz4-java.so", X86_64);
    assertThat(natives("linux/aarch64/libzstd-jni-")).containsOnly(AARCH64).hasSize(1);
    assertThat(natives("linux/amd64/libzstd-jni-")).containsOnly(X86_64).hasSize(1);
  }

  @Test
  void nettysEpollForGrpcIsThereForBothArchitectures() {
    // Pub/Sub's gRPC clients (the pull subscriber, the dead-letter publisher) use Netty's epoll.
    assertThat(
            natives(
                "META-INF/native/libio_grpc_netty_shaded_netty_transport_native_epoll_aarch_64"))
        .containsExactly(AARCH64);
    assertThat(
            natives("META-INF/native/libio_grpc_netty_shaded_netty_transport_native_epoll_x86_64"))
        .containsExactly(X86_64);
  }

  @Test
  void theElfReaderTellsTheArchitecturesApart() {
    // The check above means something only if a library of the wrong CPU reads differently.
    assertThat(NATIVES.get("net/jpountz/util/linux/aarch64/liblz4-java.so"))
        .isNotEqualTo(NATIVES.get("net/jpountz/util/linux/amd64/liblz4-java.so"));
    assertThat(NATIVES.get("net/jpountz/util/linux/ppc64le/liblz4-java.so"))
        .isNotIn(AARCH64, X86_64);
  }

  private static List<Integer> natives(String prefix) {
    return NATIVES.entrySet().stream()
        .filter(e -> e.getKey().startsWith(prefix))
        .map(Map.Entry::getValue)
        .toList();
  }
}
