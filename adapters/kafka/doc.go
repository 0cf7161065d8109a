// Package kafka measures Kafka consumer-group lag for the source
// autoscaler (github.com/vsched/vsched/sourceautoscaler/signal).
//
// It is a module of its own so that only the teams that read Kafka lag pay
// for a Kafka client (franz-go). LagProvider asks the brokers about every
// source's consumer group in one round (describe the groups, fetch their
// committed offsets, list the end offsets of their topics), so the number
// of requests does not grow with the number of sources, and reports per
// source the total lag, the partition count, the partitions with lag and
// the lag that persists on a partition whose committed offset does not
// move (a stuck message).
package kafka
