import Foundation
import Testing
import Webhooks

@Suite struct SecretBoxTests {
    @Test func sealedSecretsOpenOnlyWithTheSameKeyAndContext() throws {
        let box = try SecretBox(keyBytes: Array(repeating: 7, count: 32))
        let secret = WebhookSecret.generate()
        let sealed = try box.seal(secret, context: "wh_1")
        #expect(sealed.hasPrefix("v1."))
        #expect(!sealed.contains(secret.encoded.dropFirst(6)))
        #expect(try box.open(sealed, context: "wh_1") == secret)
        #expect(try box.seal(secret, context: "wh_1") != sealed, "a fresh nonce per seal")

        #expect(throws: WebhookError.self) { try box.open(sealed, context: "wh_2") }
        let otherKey = try SecretBox(keyBytes: Array(repeating: 8, count: 32))
        #expect(throws: WebhookError.self) { try otherKey.open(sealed, context: "wh_1") }
        var tampered = Array(sealed.utf8)
        tampered[10] = tampered[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: WebhookError.self) { try box.open(String(decoding: tampered, as: UTF8.self), context: "wh_1") }
    }

    @Test func keysMustBe32Bytes() {
        do {
            _ = try SecretBox(keyBytes: Array(repeating: 1, count: 16))
            Issue.record("a 16-byte key was accepted")
        } catch {
            #expect(error.code == .invalidKey)
        }
        #expect(throws: WebhookError.self) { try SecretBox(base64Key: "not base64!") }
        #expect(throws: Never.self) { try SecretBox(base64Key: Data(repeating: 3, count: 32).base64EncodedString()) }
    }

    @Test func loadOrCreateKeyWritesAnOwnerOnlyFileAndReadsItBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("secretbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("webhook.key")

        let first = try SecretBox.loadOrCreateKey(at: keyFile)
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let secret = WebhookSecret.generate()
        let sealed = try first.seal(secret)
        let second = try SecretBox.loadOrCreateKey(at: keyFile)
        #expect(try second.open(sealed) == secret)

        // An empty file (a crash while it was first written) is named in the error, with what to do.
        try Data().write(to: keyFile)
        do {
            _ = try SecretBox.loadOrCreateKey(at: keyFile)
            Issue.record("an empty key file was taken")
        } catch {
            #expect(error.detail.contains(keyFile.path) && error.detail.contains("delete it"), "\(error)")
        }
    }
}
