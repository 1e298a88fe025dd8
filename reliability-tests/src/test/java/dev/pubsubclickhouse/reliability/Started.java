package dev.pubsubclickhouse.reliability;

import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.ServiceProcess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a cluster test started (proxies, services, drivers), stopped in the reverse order after it,
 * also when it failed.
 */
final class Started implements AutoCloseable {
  private final List<AutoCloseable> running = new ArrayList<>();

  /** A proxy in front of {@code url} that only passes INSERTs on until told otherwise. */
  FaultInjectingProxy proxy(String url) {
    FaultInjectingProxy proxy = FaultInjectingProxy.to(url);
    running.add(proxy);
    return proxy;
  }

  /** The service with {@code env}, its log in {@code work}; not started yet. */
  ServiceProcess service(Map<String, String> env, Path work) {
    ServiceProcess service = ServiceProcess.small(env, work.resolve("service.log"));
    running.add(service::kill);
    return service;
  }

  DriverRun driver(DriverRun driver) {
    running.add(driver::stop);
    return driver;
  }

  /** Stops everything, also past one that fails to stop; throws the first failure, others added. */
  @Override
  public void close() throws Exception {
    Exception failure = null;
    for (int i = running.size() - 1; i >= 0; i--) {
      try {
        running.get(i).close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    running.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
