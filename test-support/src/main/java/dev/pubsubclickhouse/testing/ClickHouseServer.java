package dev.pubsubclickhouse.testing;

/** Where a test's ClickHouse is and how to log in to it. */
public record ClickHouseServer(String url, String user, String password) {
  @Override
  public String toString() {
    return url + " as " + user;
  }
}
