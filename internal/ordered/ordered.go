// Package ordered runs work on a stream of items in parallel and hands
// the items back in the order they came, each once its work is done: the
// shape of `select` over agent logs and of `fixtures draft`, where
// sessions are read one at a time, proposed on several cores (or several
// model calls at once), and counted in the order read so that the output
// does not depend on the number of workers.
package ordered

import "sync"

// Run calls produce, which emits items with emit(v, needsWork): each
// item that needs work is passed to work on one of workers goroutines
// (at least one), and every item is passed to consume, in the order
// emitted, after its work is done. Memory holds at most a few items per
// worker. emit returns false once the run is stopping, and produce should
// then return. The first error, of produce or of consume, stops the run
// and is returned once every goroutine has ended; an error of produce
// comes after the items it emitted before it have been consumed.
func Run[T any](workers int, produce func(emit func(v T, needsWork bool) bool) error, work func(T), consume func(T) error) error {
	workers = max(1, workers)
	type job struct {
		v    T
		err  error // produce's, for a job that ends the stream
		done chan struct{}
	}
	ordered := make(chan *job, 4*workers)
	jobs := make(chan *job, workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				work(j.v)
				close(j.done)
			}
		}()
	}
	send := func(j *job, needsWork bool) bool {
		select {
		case ordered <- j:
		case <-stop:
			return false
		}
		if !needsWork {
			close(j.done)
			return true
		}
		select {
		case jobs <- j:
			return true
		case <-stop:
			return false // never waited for: the consumer stopped
		}
	}
	go func() {
		defer close(ordered)
		defer close(jobs)
		err := produce(func(v T, needsWork bool) bool {
			return send(&job{v: v, done: make(chan struct{})}, needsWork)
		})
		if err != nil {
			send(&job{err: err, done: make(chan struct{})}, false)
		}
	}()
	var first error
	for j := range ordered {
		if first != nil {
			continue // drain, so that produce returns
		}
		<-j.done
		if first = j.err; first == nil {
			first = consume(j.v)
		}
		if first != nil {
			close(stop)
		}
	}
	wg.Wait()
	return first
}
