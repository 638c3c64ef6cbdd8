import Webhooks
