import FormStore
import Foundation
import PostgresNIO

/// Writes one group of submissions, their deliveries and the forms' counts and daily counters in one
/// transaction, and binds the uploads and closes the drafts they name, as `SubmissionWriter` does in
/// SQLite: a row that clashes, names an upload it cannot have or a draft that is gone, submitted
/// already or changed since it was read, fails alone; any other failure fails the group.
///
/// PostgreSQL aborts a transaction at its first failed statement, so nothing here is allowed to fail
/// on a clash: versions are checked first (a version is never removed), and the rows go in one
/// `INSERT … ON CONFLICT DO NOTHING RETURNING id`; the rows it skipped are then told apart. A row whose
/// draft or uploads it cannot have is deleted again, after its insert, so that a replayed key is
/// answered as a duplicate whatever its draft and uploads (see ``DraftClaims`` for the drafts).
struct SubmissionGroupWriter: Sendable {
    let client: PostgresClient
    let configuration: PostgresStoreConfiguration
    let logger: Logger
    let deliveryObserver: DeliveryObserver

    /// The notification channel of new deliveries: every node's worker wakes when another node's commit queued some.
    static let deliveriesChannel = "formhouse_deliveries"

    /// Runs the group's transaction and returns one result per submission, in order.
    func write(_ group: [NewSubmission]) async throws -> [Result<InsertOutcome, StoreError>] {
        let (results, deliveries) = try await client.transaction(configuration, logger: logger) { connection in
            let written = try await self.writeRows(group, on: connection)
            try await self.configuration.beforeGroupCommit?(connection)
            return written
        }
        if deliveries > 0 { deliveryObserver.notify() }
        return results
    }

    private func writeRows(
        _ group: [NewSubmission], on connection: PostgresConnection
    ) async throws -> ([Result<InsertOutcome, StoreError>], Int) {
        var results = [Result<InsertOutcome, StoreError>?](repeating: nil, count: group.count)
        let versions = try await knownVersions(of: group, on: connection)
        var pending: [Int] = []
        var ids = Set<String>()
        for index in group.indices {
            let record = group[index].record
            if !versions.contains(VersionKey(formID: record.formID, version: record.formVersion)) {
                results[index] = .failure(.notFound("form \(record.formID) has no version \(record.formVersion)"))
            } else if !ids.insert(record.id).inserted {
                results[index] = .failure(.conflict("submission \(record.id) clashes with another of its group"))
            } else {
                pending.append(index)
            }
        }
        let endpoints = try await activeEndpoints(formIDs: Set(pending.map { group[$0].record.formID }), on: connection)
        var drafts = try await DraftClaims(naming: pending, in: group, on: connection, logger: logger)
        // Rows whose draft was submitted already, by the id of the submission it became.
        var draftReplays: [Int: String] = [:]
        var inserted: [Int] = []
        // A key given up by a row past its window is given up once; a second clash is not retried.
        var mayReclaim = true
        while !pending.isEmpty {
            let (round, waiting) = DraftClaims.firstPerDraft(pending, in: group)
            let stored = try await insertRows(round.map { group[$0].record }, on: connection)
            let storedNow = round.filter { stored.contains(group[$0].record.id) }
            let clashed = round.filter { !stored.contains(group[$0].record.id) }
            // Drafts before uploads: a draft submitted again is answered as such whatever its uploads.
            let draftRefused = drafts.claim(for: storedNow, in: group)
            try await deleteAgain(draftRefused.keys.map { group[$0].record.id }, on: connection)
            let refused = try await bindUploads(of: storedNow.filter { draftRefused[$0] == nil }, in: group, on: connection)
            // The keys of rows taken back for their drafts or uploads: the submissions that clashed on
            // them are tried again.
            var freed = Set<KeyOwner>()
            for index in storedNow {
                if let refusal = draftRefused[index] {
                    switch refusal {
                    case .missing(let draftID): results[index] = .failure(.notFound("draft \(draftID)"))
                    case .submitted(let submissionID): draftReplays[index] = submissionID
                    case .changed(let draftID): results[index] = .failure(.conflict("draft \(draftID) changed since it was read"))
                    }
                } else if let ids = refused[index] {
                    results[index] = .success(.uploadsUnavailable(ids))
                    drafts.release(group[index])
                } else {
                    results[index] = .success(.inserted)
                    inserted.append(index)
                    continue
                }
                let record = group[index].record
                if let key = record.idempotencyKey { freed.insert(KeyOwner(formID: record.formID, key: key)) }
            }
            pending = waiting
            if clashed.isEmpty { continue }
            let holders = try await keyHolders(clashed.map { group[$0].record }, on: connection)
            var released = Set<String>()
            for index in clashed {
                let record = group[index].record
                guard let key = record.idempotencyKey, let existing = holders[KeyOwner(formID: record.formID, key: key)] else {
                    if let key = record.idempotencyKey, freed.contains(KeyOwner(formID: record.formID, key: key)) {
                        pending.append(index)
                    } else {
                        results[index] = .failure(.conflict("submission \(record.id) clashes with a stored row"))
                    }
                    continue
                }
                if existing.receivedAt >= record.receivedAt.addingTimeInterval(-configuration.idempotencyWindow) {
                    results[index] = .success(.duplicate(existing: existing))
                } else if mayReclaim {
                    // The key's window is over: the old submission gives the key up and the new one is stored.
                    if released.insert(existing.id).inserted {
                        try await connection.execute(
                            "UPDATE submissions SET idempotency_key = NULL WHERE id = \(existing.id)", logger: logger)
                    }
                    pending.append(index)
                } else {
                    results[index] = .failure(.conflict("submission \(record.id) clashes with a stored row"))
                }
            }
            mayReclaim = false
        }
        try await drafts.close(inserted.map { group[$0] }, on: connection)
        let replayed = try await submissions(ids: Set(draftReplays.values), on: connection)
        for (index, submissionID) in draftReplays {
            // A submitted draft names its submission by a foreign key: it is there.
            results[index] = replayed[submissionID].map { .success(.draftSubmitted(existing: $0)) }
                ?? .failure(.notFound("submission \(submissionID)"))
        }
        let deliveries = try await insertDeliveries(for: inserted.map { group[$0] }, endpoints: endpoints, on: connection)
        try await addToCounts(inserted.map { group[$0].record.formID }, on: connection)
        var tally = SubmissionTally()
        for index in inserted {
            tally.add(
                formID: group[index].record.formID, receivedAtMilliseconds: group[index].record.receivedAt.storedMilliseconds,
                fromDraft: group[index].draftID != nil)
        }
        try await PostgresFormStatsQueries.addSubmissions(tally, on: connection, logger: logger)
        if deliveries > 0 {
            // Delivered to every listening node when (and only if) the transaction commits.
            try await connection.execute("SELECT pg_notify(\(Self.deliveriesChannel), '')", logger: logger)
        }
        return (results.map { $0! }, deliveries)
    }

    private struct VersionKey: Hashable {
        var formID: String
        var version: Int
    }

    private struct KeyOwner: Hashable {
        var formID: String
        var key: String
    }

    /// Which of the group's form versions exist.
    private func knownVersions(of group: [NewSubmission], on connection: PostgresConnection) async throws -> Set<VersionKey> {
        let wanted = Array(Set(group.map { VersionKey(formID: $0.record.formID, version: $0.record.formVersion) }))
        var known = Set<VersionKey>()
        let rows = try await connection.query("""
            SELECT form_id, version FROM form_versions
            WHERE (form_id, version) IN (SELECT * FROM unnest(\(wanted.map(\.formID))::text[], \(wanted.map(\.version))::bigint[]))
            """, logger: logger)
        for try await (formID, version) in rows.decode((String, Int).self) {
            known.insert(VersionKey(formID: formID, version: version))
        }
        return known
    }

    /// The endpoints that are neither deleted nor disabled, per form, in the order SQLite queues them.
    /// Share-locked until the group commits: an endpoint disabled meanwhile on another node is then
    /// disabled either before this group reads it (and gets no delivery) or after the group commits.
    private func activeEndpoints(formIDs: Set<String>, on connection: PostgresConnection) async throws -> [String: [String]] {
        var endpoints: [String: [String]] = [:]
        if formIDs.isEmpty { return endpoints }
        let rows = try await connection.query("""
            SELECT form_id, id FROM webhook_endpoints
            WHERE form_id = ANY(\(Array(formIDs))::text[]) AND deleted_at IS NULL AND disabled_at IS NULL
            ORDER BY form_id, created_at, id
            FOR SHARE
            """, logger: logger)
        for try await (formID, id) in rows.decode((String, String).self) {
            endpoints[formID, default: []].append(id)
        }
        return endpoints
    }

    /// Inserts the rows in one statement and returns the ids stored; a row whose id or idempotency key
    /// is taken is skipped. Rows go in order of form and key, so that two nodes inserting the same keys
    /// take them in the same order (and do not deadlock), and a key repeated within the group goes to
    /// its first row.
    private func insertRows(_ records: [SubmissionRecord], on connection: PostgresConnection) async throws -> Set<String> {
        var stored = Set<String>()
        let rows = try await connection.query("""
            INSERT INTO submissions (id, form_id, form_version, received_at, "values", raw_body, idempotency_key,
                body_hash, client_address)
            SELECT id, form_id, form_version, received_at, v, raw_body, idempotency_key, body_hash, client_address
            FROM unnest(\(records.map(\.id))::text[], \(records.map(\.formID))::text[],
                \(records.map { Int64($0.formVersion) })::bigint[], \(records.map(\.receivedAt.storedMilliseconds))::bigint[],
                \(records.map(\.values))::text[], \(ArrayParameter(records.map(\.rawBody)))::bytea[],
                \(ArrayParameter(records.map(\.idempotencyKey)))::text[], \(ArrayParameter(records.map(\.bodyHash)))::text[],
                \(ArrayParameter(records.map(\.clientAddress)))::text[])
                WITH ORDINALITY AS r(id, form_id, form_version, received_at, v, raw_body, idempotency_key, body_hash,
                    client_address, position)
            ORDER BY form_id COLLATE "C", idempotency_key COLLATE "C", position
            ON CONFLICT DO NOTHING
            RETURNING id
            """, logger: logger)
        for try await id in rows.decode(String.self) {
            stored.insert(id)
        }
        return stored
    }

    /// Binds the uploads that the just stored submissions `stored` name, each to the first of them in
    /// group order; a submission naming one that is unknown, incomplete, of another form or bound
    /// already (by an earlier one of the group too) is deleted again. Returns the ids at fault of each
    /// submission deleted, by its index in `group`.
    private func bindUploads(
        of stored: [Int], in group: [NewSubmission], on connection: PostgresConnection
    ) async throws -> [Int: [String]] {
        let naming = stored.filter { !group[$0].uploadIDs.isEmpty }
        if naming.isEmpty { return [:] }
        // Locked in id order, so that groups naming the same uploads take them in the same order; an
        // upload that another transaction is binding is read once that transaction has ended.
        let rows = try await connection.query("""
            SELECT id, form_id, complete AND submission_id IS NULL FROM uploads
            WHERE id = ANY(\(Array(Set(naming.flatMap { group[$0].uploadIDs }))))
            ORDER BY id FOR UPDATE
            """, logger: logger)
        var available: [String: String] = [:]
        for try await (id, formID, free) in rows.decode((String, String, Bool).self) where free {
            available[id] = formID
        }
        var refused: [Int: [String]] = [:]
        var boundUploads: [String] = []
        var boundTo: [String] = []
        for index in naming {
            let record = group[index].record
            var seen = Set<String>()
            let ids = group[index].uploadIDs.filter { seen.insert($0).inserted }
            let faults = ids.filter { available[$0] != record.formID }
            guard faults.isEmpty else {
                refused[index] = faults
                continue
            }
            for id in ids {
                available[id] = nil
                boundUploads.append(id)
                boundTo.append(record.id)
            }
        }
        if !boundUploads.isEmpty {
            try await connection.execute("""
                UPDATE uploads SET submission_id = b.submission_id
                FROM unnest(\(boundUploads)::text[], \(boundTo)::text[]) AS b(id, submission_id)
                WHERE uploads.id = b.id
                """, logger: logger)
        }
        try await deleteAgain(refused.keys.map { group[$0].record.id }, on: connection)
        return refused
    }

    /// Deletes rows just stored that cannot be kept; they bound no upload and closed no draft.
    private func deleteAgain(_ ids: [String], on connection: PostgresConnection) async throws {
        if ids.isEmpty { return }
        try await connection.execute("DELETE FROM submissions WHERE id = ANY(\(ids))", logger: logger)
    }

    /// The stored submissions with these ids, by id.
    private func submissions(
        ids: Set<String>, on connection: PostgresConnection
    ) async throws -> [String: SubmissionRecord] {
        if ids.isEmpty { return [:] }
        let rows = try await connection.query(
            "SELECT \(unescaped: PostgresSubmissionQueries.columns) FROM submissions WHERE id = ANY(\(Array(ids)))",
            logger: logger)
        return Dictionary(uniqueKeysWithValues: try await rows.submissionRecords().map { ($0.id, $0) })
    }

    /// The stored submissions that hold the keys of `records` (those that have one). Read after the
    /// insert that skipped them: a key another transaction was inserting is then committed and seen.
    private func keyHolders(
        _ records: [SubmissionRecord], on connection: PostgresConnection
    ) async throws -> [KeyOwner: SubmissionRecord] {
        let keyed = records.filter { $0.idempotencyKey != nil }
        var holders: [KeyOwner: SubmissionRecord] = [:]
        if keyed.isEmpty { return holders }
        let rows = try await connection.query("""
            SELECT \(unescaped: PostgresSubmissionQueries.columns) FROM submissions
            WHERE (form_id, idempotency_key) IN (
                SELECT * FROM unnest(\(keyed.map(\.formID))::text[], \(keyed.map { $0.idempotencyKey ?? "" })::text[]))
            """, logger: logger)
        for record in try await rows.submissionRecords() {
            if let key = record.idempotencyKey { holders[KeyOwner(formID: record.formID, key: key)] = record }
        }
        return holders
    }

    /// One pending delivery per active endpoint of each stored submission's form, due now; returns
    /// how many were queued.
    private func insertDeliveries(
        for submissions: [NewSubmission], endpoints: [String: [String]], on connection: PostgresConnection
    ) async throws -> Int {
        var ids: [String] = []
        var endpointIDs: [String] = []
        var submissionIDs: [String] = []
        var formIDs: [String] = []
        var payloads: [[UInt8]?] = []
        for submission in submissions {
            guard let targets = endpoints[submission.record.formID], !targets.isEmpty else { continue }
            let payload = submission.webhookPayload
            for endpoint in targets {
                ids.append(RandomID.timeOrdered(prefix: "msg_"))
                endpointIDs.append(endpoint)
                submissionIDs.append(submission.record.id)
                formIDs.append(submission.record.formID)
                payloads.append(payload)
            }
        }
        if ids.isEmpty { return 0 }
        let now = Date().storedMilliseconds
        try await connection.execute("""
            INSERT INTO deliveries (id, endpoint_id, submission_id, form_id, payload, status, attempts,
                next_attempt_at, created_at, updated_at)
            SELECT id, endpoint_id, submission_id, form_id, payload, 'pending', 0, \(now), \(now), \(now)
            FROM unnest(\(ids)::text[], \(endpointIDs)::text[], \(submissionIDs)::text[], \(formIDs)::text[],
                \(ArrayParameter(payloads))::bytea[]) AS d(id, endpoint_id, submission_id, form_id, payload)
            """, logger: logger)
        return ids.count
    }

    /// Adds the stored rows to their forms' counts, last (the form rows stay locked until COMMIT, and
    /// other nodes' groups of the same forms wait for them), form by form in id order, so that two
    /// groups lock the same forms in the same order.
    private func addToCounts(_ formIDs: [String], on connection: PostgresConnection) async throws {
        var counts: [String: Int] = [:]
        for formID in formIDs { counts[formID, default: 0] += 1 }
        for (formID, count) in counts.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
            try await connection.execute(
                "UPDATE forms SET submission_count = submission_count + \(count) WHERE id = \(formID)", logger: logger)
        }
    }
}
