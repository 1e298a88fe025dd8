package dev.pubsubclickhouse.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * An extension that gives each test class a thing of its own (a database, a cluster, an emulator)
 * as a constructor or method parameter of type {@code parameterType}. What holds it, {@code H}, is
 * made on first use and kept in the class's store: a PER_CLASS constructor asks before {@code
 * beforeAll}, which only makes sure it exists.
 */
abstract class ClassScopedExtension<H> implements BeforeAllCallback, ParameterResolver {
  private final Namespace namespace = Namespace.create(getClass());
  private final Class<H> holderType;
  private final Class<?> parameterType;

  ClassScopedExtension(Class<H> holderType, Class<?> parameterType) {
    this.holderType = holderType;
    this.parameterType = parameterType;
  }

  /** This extension's part of a store. */
  final Namespace namespace() {
    return namespace;
  }

  /** Makes the holder for the test class of {@code classContext}. */
  abstract H create(ExtensionContext classContext);

  /** What a test's parameter gets from the holder. */
  abstract Object parameter(H holder);

  @Override
  public void beforeAll(ExtensionContext context) {
    holder(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == parameterType;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter(holder(context));
  }

  /** The class's holder, made on first use. */
  final H holder(ExtensionContext context) {
    ExtensionContext classContext = classContext(context);
    return classContext
        .getStore(namespace)
        .getOrComputeIfAbsent(holderType, key -> create(classContext), holderType);
  }

  /** Takes the class's holder out of its store, so that closing the store leaves it; or null. */
  final H remove(ExtensionContext context) {
    return classContext(context).getStore(namespace).remove(holderType, holderType);
  }

  private static ExtensionContext classContext(ExtensionContext context) {
    return context.getTestMethod().isPresent() ? context.getParent().orElse(context) : context;
  }
}
