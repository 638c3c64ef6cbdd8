import Foundation
import GRDB

extension DraftRecord: StoredRecord {
    /// Read by position, in the order of ``DraftQueries/columns``.
    public init(row: Row) {
        self.init(
            id: row[0], formID: row[1], formVersion: row[2], tokenHash: row[3], revision: row[4], values: row[5],
            clientAddress: row[6], createdAt: Date(storedMilliseconds: row[7]), updatedAt: Date(storedMilliseconds: row[8]),
            expiresAt: Date(storedMilliseconds: row[9]), submissionID: row[10])
    }
}
