package io.lakestream.bench;

import static java.util.Objects.requireNonNull;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * The machine and JVM a benchmark ran on, recorded in every report because figures only compare on
 * the same machine.
 *
 * @param cores processors available to the benchmark JVM
 * @param totalMemoryBytes physical memory as the JVM sees it (a container limit when there is one)
 * @param jvm vendor, VM name and runtime version of the benchmark JVM
 * @param maxHeapBytes the benchmark JVM's maximum heap
 * @param os operating system name, version and architecture
 */
public record Machine(int cores, long totalMemoryBytes, String jvm, long maxHeapBytes, String os) {
  public Machine {
    requireNonNull(jvm, "jvm is null");
    requireNonNull(os, "os is null");
  }

  /** The machine this JVM runs on. */
  public static Machine current() {
    OperatingSystemMXBean system =
        (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    return new Machine(
        Runtime.getRuntime().availableProcessors(),
        system.getTotalMemorySize(),
        System.getProperty("java.vm.vendor")
            + " "
            + System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version"),
        Runtime.getRuntime().maxMemory(),
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
  }
}
