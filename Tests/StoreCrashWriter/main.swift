// Writes submissions from several tasks, and rejections from half as many, into the store at the
// given directory and prints "ack <id>" for each insert and "rejected" for each rejection as soon as
// it returns, until killed. The crash tests kill it with SIGKILL mid-stream and check that every
// acknowledged write survived.
//
//     StoreCrashWriter DIRECTORY [WRITERS]
import FormStore
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: StoreCrashWriter DIRECTORY [WRITERS]\n".utf8))
    exit(2)
}
let store = try SQLiteFormStore(directory: URL(fileURLWithPath: arguments[1]))
let writers = arguments.count > 2 ? Int(arguments[2]) ?? 8 : 8
_ = try await store.saveFormVersion(formID: "crash", definition: "{}", title: "Crash", contentHash: "crash-1")
if try await store.endpoints(formID: "crash").isEmpty {
    _ = try await store.createEndpoint(NewEndpoint(formID: "crash", url: "https://receiver.test/", secretCiphertext: [7]))
}

try await withThrowingTaskGroup(of: Void.self) { group in
    for _ in 0..<writers {
        group.addTask {
            while true {
                let id = RandomID.make(prefix: "sub_")
                let body = Array("{\"values\":{\"id\":\"\(id)\"}}".utf8)
                let outcome = try await store.insertSubmission(NewSubmission(
                    SubmissionRecord(
                        id: id, formID: "crash", formVersion: 1, receivedAt: Date(), values: "{}", rawBody: body,
                        idempotencyKey: "key-\(id)", bodyHash: nil, clientAddress: nil),
                    webhookPayload: { body }))
                if case .inserted = outcome {
                    // One write(2) per line, so a kill never leaves half an acknowledgement.
                    FileHandle.standardOutput.write(Data("ack \(id)\n".utf8))
                }
            }
        }
    }
    for _ in 0..<max(1, writers / 2) {
        group.addTask {
            while true {
                try await store.recordRejection(Rejection(
                    formID: "crash", at: Date(),
                    failures: [FieldFailure(field: "email", code: "format"), FieldFailure(field: "name", code: "required")]))
                FileHandle.standardOutput.write(Data("rejected\n".utf8))
            }
        }
    }
    try await group.waitForAll()
}
