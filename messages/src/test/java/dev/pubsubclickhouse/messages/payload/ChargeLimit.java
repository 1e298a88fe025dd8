package dev.pubsubclickhouse.messages.payload;

import dev.pubsubclickhouse.messages.MemoryCharge;

/** Takes charges up to a limit, then refuses (a refusal that may pass); remembers the most held. */
final class ChargeLimit implements MemoryCharge {
  private final long limit;
  long held;
  long most;

  ChargeLimit(long limit) {
    this.limit = limit;
  }

  @Override
  public void charge(long bytes) {
    if (held + bytes > limit) {
      throw new Refusal("full") {
        @Override
        public boolean mayPass() {
          return true;
        }
      };
    }
    held += bytes;
    most = Math.max(most, held);
  }

  @Override
  public void giveBack(long bytes) {
    held -= bytes;
  }
}
