package io.lakestream.store.log;

/** When an appended batch counts as written. */
public enum FlushMode {
  /**
   * After it is forced to disk ({@code fsync}); concurrent appends share one force (group commit).
   * An acknowledged batch survives a crash of the process or the machine.
   */
  FSYNC,
  /**
   * After it is written to the operating system's page cache. Lower latency; an acknowledged batch
   * survives a crash of the process but not of the machine.
   */
  OS
}
