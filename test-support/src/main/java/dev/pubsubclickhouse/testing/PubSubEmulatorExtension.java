package dev.pubsubclickhouse.testing;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class a Pub/Sub emulator of its own (a {@link PubSubEmulator} parameter), started
 * before its first test and stopped after its last, its log under {@code target/pubsub-emulator/}.
 * Where the emulator is not installed the class fails with the line that installs it: these tests
 * are never skipped.
 */
public final class PubSubEmulatorExtension
    extends ClassScopedExtension<PubSubEmulatorExtension.Running> {
  public PubSubEmulatorExtension() {
    super(Running.class, PubSubEmulator.class);
  }

  @Override
  Running create(ExtensionContext classContext) {
    return new Running(classContext.getRequiredTestClass());
  }

  @Override
  Object parameter(Running running) {
    return running.emulator;
  }

  /** Closing the class's store stops it. */
  static final class Running implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    final PubSubEmulator emulator;

    Running(Class<?> testClass) {
      emulator =
          PubSubEmulator.start(Path.of("target", "pubsub-emulator", testClass.getSimpleName()));
    }

    @Override
    public void close() {
      emulator.stop();
    }
  }
}
