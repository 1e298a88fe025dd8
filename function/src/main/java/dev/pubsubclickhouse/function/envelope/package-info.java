/** What arrives over HTTP: push envelopes (wrapped and unwrapped) read into messages. */
package dev.pubsubclickhouse.function.envelope;
