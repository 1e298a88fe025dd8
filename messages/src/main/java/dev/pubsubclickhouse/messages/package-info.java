/**
 * A Pub/Sub message on its way to rows: the message as received ({@link
 * dev.pubsubclickhouse.messages.PubSubMessage}), its encoder (payload format, the {@code _pubsub_*}
 * metadata columns, RowBinary), and the parameters that shape both. The push service and replay use
 * the same classes, so a replayed message is written as a pushed one.
 */
package dev.pubsubclickhouse.messages;
