package dev.pubsubclickhouse.core.config;

/** Invalid configuration: one line that names the parameter and the problem. */
public final class ConfigurationException extends RuntimeException {
  public ConfigurationException(Parameter parameter, String problem) {
    super(parameter.displayName() + ": " + problem);
  }

  public ConfigurationException(String message) {
    super(message);
  }
}
