/**
 * The dead-letter topic: a message that cannot be written, published with its data, its attributes
 * and the reason; replay reads the same attribute names back.
 */
package dev.pubsubclickhouse.messages.sinks;
