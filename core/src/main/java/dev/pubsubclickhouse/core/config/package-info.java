/**
 * Configuration: parameters (environment variables and flags), their typed reading, and secrets.
 */
package dev.pubsubclickhouse.core.config;
