package dev.pubsubclickhouse.messages.payload;

import dev.pubsubclickhouse.messages.MemoryCharge;

/**
 * Counts the nodes a decoder makes for a message's rows and charges them as they are made, a step
 * at a time: Avro and Protocol Buffers items can take no bytes or two (a null, an empty record or
 * message), so the data's length says little about what its rows take.
 */
final class NodeCharge {
  /**
   * Heap per node, the decoder's value and the row's node together. Measured (Avro 1.12,
   * protobuf-java 4, Jackson 2.20, compressed oops), with two nodes counted for an empty record or
   * message in an array (the item and the object): Avro empty records 172 bytes an item, Protocol
   * Buffers empty messages 85; one node for a one-character string, 70 bytes an item (Avro) and 69
   * (Protocol Buffers); Avro map entries of short keys 100 bytes an entry, of which the data's own
   * bytes are charged apart.
   */
  static final int BYTES_PER_NODE = 96;

  private static final int STEP = 1024;

  private final MemoryCharge memory;
  private int uncharged;

  NodeCharge(MemoryCharge memory) {
    this.memory = memory;
  }

  /**
   * One node more.
   *
   * @throws MemoryCharge.Refusal when the memory cannot take the step it completes
   */
  void add() {
    if (++uncharged == STEP) {
      memory.charge((long) STEP * BYTES_PER_NODE);
      uncharged = 0;
    }
  }
}
