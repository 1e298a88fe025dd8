/** Who may push: verification of the OIDC token Pub/Sub signs for each push request. */
package dev.pubsubclickhouse.function.auth;
