package dev.pubsubclickhouse.function.observability;

import dev.pubsubclickhouse.messages.MessageEvents;

/** The message encoder's events as the push service's metrics. */
public final class PushMessageEvents implements MessageEvents {
  private final Metrics metrics;

  public PushMessageEvents(Metrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void payloadRead(int bytes) {
    metrics.messagePayloadBytes.record(bytes);
  }

  @Override
  public void rowsRead(int rows) {
    metrics.rowsParsedOk.add(rows);
  }

  @Override
  public void rowsRejected(int rows) {
    metrics.rowsParseFailed.add(rows);
  }

  @Override
  public void schemaLookedUp() {
    metrics.schemaLookups.increment();
  }

  @Override
  public void schemaLookupRefused() {
    metrics.schemaLookupsRefused.increment();
  }
}
