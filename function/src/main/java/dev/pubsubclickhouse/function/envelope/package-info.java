/** What arrives over HTTP: push envelopes (wrapped and unwrapped) and compressed payloads. */
package dev.pubsubclickhouse.function.envelope;
