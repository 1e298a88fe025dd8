package dev.pubsubclickhouse.messages;

/**
 * Where reading a message counts the memory it takes as it takes it, so that a request can be
 * refused before a small message has grown into a large one. A charge that does not fit throws, and
 * the reading stops there.
 */
public interface MemoryCharge {
  /** Counts nothing: for reading outside a request (a dead letter, a replay). */
  MemoryCharge NONE =
      new MemoryCharge() {
        @Override
        public void charge(long bytes) {}

        @Override
        public void giveBack(long bytes) {}
      };

  /**
   * Takes at most {@code limit} bytes in all, then refuses as for a message that needs too much:
   * for reading outside a request whose cost must stay small (a dead letter's readable copy).
   */
  static MemoryCharge atMost(long limit) {
    return new MemoryCharge() {
      private long taken;

      @Override
      public void charge(long bytes) {
        if (taken + bytes > limit) {
          throw new Refusal("more than " + limit + " bytes") {
            private static final long serialVersionUID = 1L;

            @Override
            public boolean mayPass() {
              return false;
            }
          };
        }
        taken += bytes;
      }

      @Override
      public void giveBack(long bytes) {
        taken -= bytes;
      }
    };
  }

  /**
   * Counts {@code bytes} more.
   *
   * @throws Refusal when they do not fit
   */
  void charge(long bytes);

  /** Stops counting {@code bytes} charged before, which are garbage now. */
  void giveBack(long bytes);

  /**
   * A charge that did not fit. Readers pass it on as it is: it says nothing about the data being
   * wrong.
   */
  abstract class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected Refusal(String message) {
      super(message, null, false, false);
    }

    /**
     * True when the memory may be had later (others hold it now): the message is answered so that
     * Pub/Sub delivers it again. False when the message alone needs more than any reading may take:
     * it is refused as data that cannot be read.
     */
    public abstract boolean mayPass();
  }
}
