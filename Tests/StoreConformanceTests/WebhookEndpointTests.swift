import FormStore
import Foundation
import StoreTestSupport
import Testing

/// What ``WebhookStore`` promises of endpoints, checked on every store.
@Suite struct WebhookEndpointTests {
    private let secret: [UInt8] = [1, 2, 3, 4]

    @Test(arguments: StoreKind.allCases)
    func endpointsAreListedOldestFirstAndReadOneByOne(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            try await makeForm(store, id: "signup")
            try await makeForm(store, id: "other")
            let base = Date(storedMilliseconds: 1_800_000_000_123)
            let later = try await store.createEndpoint(NewEndpoint(
                id: "ep_b", formID: "signup", url: "https://b.test/", secretCiphertext: [0, 255], createdAt: base.addingTimeInterval(1)))
            let earlier = try await store.createEndpoint(NewEndpoint(
                id: "ep_a", formID: "signup", url: "https://a.test/", secretCiphertext: secret, createdAt: base.addingTimeInterval(0.0005)))
            _ = try await store.createEndpoint(NewEndpoint(id: "ep_o", formID: "other", url: "https://o.test/", secretCiphertext: secret))

            // Times are kept to the millisecond, as stored.
            #expect(earlier.createdAt == base)
            #expect(earlier.previousSecretCiphertext == nil && earlier.disabledAt == nil && earlier.disabledReason == nil)
            #expect(try await store.endpoints(formID: "signup") == [earlier, later])
            #expect(try await store.endpoint(id: "ep_b") == later)
            #expect(try await store.endpoint(id: "ep_b")?.secretCiphertext == [0, 255])
            #expect(try await store.endpoint(id: "ep_unknown") == nil)
            #expect(try await store.endpoints(formID: "unknown").isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func creationNeedsALiveFormAFreeIdAndRoomUnderTheLimit(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            try await makeForm(store, id: "signup")
            try await makeForm(store, id: "gone")
            #expect(try await store.deleteForm(id: "gone"))
            await #expect(throws: StoreError.notFound("form missing")) {
                _ = try await store.createEndpoint(NewEndpoint(formID: "missing", url: "https://x.test/", secretCiphertext: secret))
            }
            await #expect(throws: StoreError.notFound("form gone")) {
                _ = try await store.createEndpoint(NewEndpoint(formID: "gone", url: "https://x.test/", secretCiphertext: secret))
            }

            _ = try await store.createEndpoint(NewEndpoint(id: "ep_1", formID: "signup", url: "https://a.test/", secretCiphertext: secret))
            await #expect(throws: StoreError.conflict("endpoint ep_1 exists")) {
                _ = try await store.createEndpoint(NewEndpoint(id: "ep_1", formID: "signup", url: "https://b.test/", secretCiphertext: secret))
            }
            #expect(try await store.endpoint(id: "ep_1")?.url == "https://a.test/")

            _ = try await store.createEndpoint(
                NewEndpoint(id: "ep_2", formID: "signup", url: "https://b.test/", secretCiphertext: secret, maxPerForm: 2))
            await #expect(throws: StoreError.limitReached("form signup has 2 endpoints")) {
                _ = try await store.createEndpoint(
                    NewEndpoint(id: "ep_3", formID: "signup", url: "https://c.test/", secretCiphertext: secret, maxPerForm: 2))
            }
            // Deleted endpoints do not count; disabled ones do.
            try await store.disableEndpoint(id: "ep_2", reason: "410 Gone")
            #expect(try await store.deleteEndpoint(id: "ep_1"))
            _ = try await store.createEndpoint(
                NewEndpoint(id: "ep_3", formID: "signup", url: "https://c.test/", secretCiphertext: secret, maxPerForm: 2))
            #expect(try await store.endpoints(formID: "signup").map(\.id).sorted() == ["ep_2", "ep_3"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func rotationKeepsThePreviousSecretAndItsExpiry(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            try await makeForm(store, id: "signup")
            let endpoint = try await store.createEndpoint(
                NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))
            let until = Date(storedMilliseconds: 1_900_000_000_000)
            let rotated = try #require(try await store.rotateEndpointSecret(
                id: endpoint.id, newSecretCiphertext: [9, 9], previousValidUntil: until))
            #expect(rotated.secretCiphertext == [9, 9] && rotated.previousSecretCiphertext == secret)
            #expect(rotated.previousSecretExpiresAt == until && rotated.createdAt == endpoint.createdAt)
            #expect(try await store.endpoint(id: endpoint.id) == rotated)

            let again = try #require(try await store.rotateEndpointSecret(
                id: endpoint.id, newSecretCiphertext: [7], previousValidUntil: until.addingTimeInterval(1)))
            #expect(again.secretCiphertext == [7] && again.previousSecretCiphertext == [9, 9])
            #expect(try await store.rotateEndpointSecret(id: "ep_unknown", newSecretCiphertext: [1], previousValidUntil: until) == nil)
            #expect(try await store.deleteEndpoint(id: endpoint.id))
            #expect(try await store.rotateEndpointSecret(id: endpoint.id, newSecretCiphertext: [1], previousValidUntil: until) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func disablingKeepsTheFirstReasonAndDeletingHidesTheEndpoint(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            try await makeForm(store, id: "signup")
            let endpoint = try await store.createEndpoint(
                NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))
            let before = Date(storedMilliseconds: Date().storedMilliseconds)
            try await store.disableEndpoint(id: endpoint.id, reason: "410 Gone")
            let disabled = try #require(try await store.endpoint(id: endpoint.id))
            #expect(disabled.disabledReason == "410 Gone" && (disabled.disabledAt ?? .distantPast) >= before)
            try await store.disableEndpoint(id: endpoint.id, reason: "again")
            #expect(try await store.endpoint(id: endpoint.id) == disabled)
            #expect(try await store.endpoints(formID: "signup") == [disabled])

            #expect(try await store.deleteEndpoint(id: endpoint.id))
            #expect(try await store.deleteEndpoint(id: endpoint.id) == false)
            #expect(try await store.deleteEndpoint(id: "ep_unknown") == false)
            #expect(try await store.endpoint(id: endpoint.id) == nil)
            #expect(try await store.endpoints(formID: "signup").isEmpty)
            await #expect(throws: StoreError.notFound("endpoint \(endpoint.id)")) {
                try await store.disableEndpoint(id: endpoint.id, reason: "again")
            }
            await #expect(throws: StoreError.notFound("endpoint ep_unknown")) {
                try await store.disableEndpoint(id: "ep_unknown", reason: "again")
            }
        }
    }
}

