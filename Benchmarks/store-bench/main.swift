// Durable submission inserts per second: group commit with concurrent writers against one fsync'd
// transaction per insert, both with synchronous=FULL on the same disk, in the same run.
//
// The disk is shared with other work, so its fsync latency drifts: the phases alternate for a few
// rounds and the ratio of the medians is reported.
//
//     swift run -c release StoreBenchmark [--writers 64] [--inserts 20000] [--serial 1000] [--rounds 3] [--synchronous full] [--directory PATH]
import FormStore
import Foundation

struct Options {
    var writers = 64
    var inserts = 20_000
    var serialInserts = 1_000
    var rounds = 3
    /// NORMAL (no fsync per commit) shows the CPU-bound ceiling; the comparison is made with FULL.
    var synchronous = SQLiteStoreConfiguration.Synchronous.full
    var directory = FileManager.default.temporaryDirectory

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let flag = iterator.next() {
            guard let value = iterator.next() else { Self.usage() }
            switch flag {
            case "--writers": writers = Self.count(value)
            case "--inserts": inserts = Self.count(value)
            case "--serial": serialInserts = Self.count(value)
            case "--rounds": rounds = Self.count(value)
            case "--synchronous":
                guard let mode = SQLiteStoreConfiguration.Synchronous(rawValue: value.uppercased()) else { Self.usage() }
                synchronous = mode
            case "--directory": directory = URL(fileURLWithPath: value)
            default: Self.usage()
            }
        }
    }

    static func count(_ text: String) -> Int {
        guard let value = Int(text), value > 0 else { usage() }
        return value
    }

    static func usage() -> Never {
        print("usage: StoreBenchmark [--writers N] [--inserts N] [--serial N] [--rounds N] [--synchronous full|normal] [--directory PATH]")
        exit(2)
    }
}

struct Run {
    var inserts: Int
    var seconds: Double
    var statistics: CommitStatistics
    var rate: Double { Double(inserts) / seconds }
}

let rawBody = Array(#"{"formVersion":1,"values":{"name":"Ana Souza","mail":"ana@example.com","phone":"(11) 98765-4321","address":{"line1":"Rua das Flores 100","city":"São Paulo"},"accept":true}}"#.utf8)

func submission(_ index: Int) -> NewSubmission {
    let id = RandomID.timeOrdered(prefix: "sub_")
    let payload = rawBody
    return NewSubmission(
        SubmissionRecord(
            id: id, formID: "bench", formVersion: 1, receivedAt: Date(),
            values: #"{"name":"Ana Souza","mail":"ana@example.com","phone":"(11) 98765-4321","accept":true}"#,
            rawBody: rawBody, idempotencyKey: "key-\(index)", bodyHash: "sha256-\(index)",
            clientAddress: "127.0.0.1"),
        webhookPayload: { payload })
}

/// Opens a fresh store, inserts `inserts` submissions from `writers` concurrent tasks, closes it.
func measure(writers: Int, inserts: Int, maxGroupSize: Int, options: Options) async throws -> Run {
    let parent = options.directory
    let directory = parent.appendingPathComponent("store-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try SQLiteFormStore(
        directory: directory, configuration: SQLiteStoreConfiguration(synchronous: options.synchronous, maxGroupSize: maxGroupSize))
    defer { store.close() }
    _ = try await store.saveFormVersion(formID: "bench", definition: "{}", title: "Bench", contentHash: "h")
    let perWriter = inserts / writers
    let clock = ContinuousClock()
    let elapsed = try await clock.measure {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<perWriter {
                        _ = try await store.insertSubmission(submission(writer * perWriter + index))
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Run(inserts: perWriter * writers, seconds: seconds, statistics: store.commitStatistics)
}

func describe(_ name: String, _ run: Run) {
    let sizes = run.statistics.recentGroupSizes.sorted()
    let percentile = { (p: Double) in sizes.isEmpty ? 0 : sizes[min(sizes.count - 1, Int(Double(sizes.count) * p))] }
    let mean = Double(run.statistics.items) / Double(max(run.statistics.groups, 1))
    print(String(format: "%@: %d inserts in %.2f s = %.0f inserts/s; %d transactions, group size mean %.1f, p50 %d, p95 %d, max %d",
                 name, run.inserts, run.seconds, run.rate, run.statistics.groups, mean,
                 percentile(0.5), percentile(0.95), run.statistics.largestGroup))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

let options = Options(arguments: CommandLine.arguments)
print("store-bench: synchronous=\(options.synchronous.rawValue), WAL, data in \(options.directory.path), \(ProcessInfo.processInfo.activeProcessorCount) cores")
var serialRates: [Double] = []
var ungroupedRates: [Double] = []
var groupedRates: [Double] = []
for round in 1...options.rounds {
    print("round \(round)")
    let serial = try await measure(writers: 1, inserts: options.serialInserts, maxGroupSize: 1, options: options)
    describe("  baseline, one fsync'd transaction per insert (1 writer)", serial)
    let ungrouped = try await measure(
        writers: options.writers, inserts: options.serialInserts, maxGroupSize: 1, options: options)
    describe("  no grouping, \(options.writers) writers, group size capped at 1", ungrouped)
    let grouped = try await measure(writers: options.writers, inserts: options.inserts, maxGroupSize: 256, options: options)
    describe("  group commit, \(options.writers) writers", grouped)
    serialRates.append(serial.rate)
    ungroupedRates.append(ungrouped.rate)
    groupedRates.append(grouped.rate)
}
print(String(format: "median inserts/s: baseline %.0f, no grouping %.0f, group commit %.0f",
             median(serialRates), median(ungroupedRates), median(groupedRates)))
print(String(format: "ratio group commit / baseline (medians): %.1fx", median(groupedRates) / median(serialRates)))
