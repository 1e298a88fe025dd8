package dev.pubsubclickhouse.testing;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test class a Pub/Sub emulator of its own (a {@link PubSubEmulator} parameter), started
 * before its first test and stopped after its last, its log under {@code target/pubsub-emulator/}.
 * Where the emulator is not installed the class fails with the line that installs it: these tests
 * are never skipped.
 */
public final class PubSubEmulatorExtension implements BeforeAllCallback, ParameterResolver {
  private static final Namespace NAMESPACE = Namespace.create(PubSubEmulatorExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    emulator(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PubSubEmulator.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return emulator(context);
  }

  /** The class's emulator, started on first use (a PER_CLASS constructor asks before beforeAll). */
  private static PubSubEmulator emulator(ExtensionContext context) {
    ExtensionContext classContext =
        context.getTestMethod().isPresent() ? context.getParent().orElse(context) : context;
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            Running.class, key -> new Running(classContext.getRequiredTestClass()), Running.class)
        .emulator;
  }

  /** Closing the class's store stops it. */
  private static final class Running
      implements ExtensionContext.Store.CloseableResource, AutoCloseable {
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
