package admin

import (
	"context"
	"strings"

	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/loglevel"
)

// loggerArgs are the params of admin.getLoggerLevel.
type loggerArgs struct {
	LoggerName string `json:"loggerName"`
}

// setLoggerArgs are the params of admin.setLoggerLevel; a nil level is
// left unchanged.
type setLoggerArgs struct {
	LoggerName   string  `json:"loggerName"`
	LogLevel     *string `json:"logLevel"`
	DisplayLevel *string `json:"displayLevel"`
}

// loggerLevels is the result of admin.getLoggerLevel.
type loggerLevels struct {
	LoggerLevels map[string]logging.LevelPair `json:"loggerLevels"`
}

// getLoggerLevel returns the levels of one logger, or of all.
func (s *Service) getLoggerLevel(_ context.Context, a loggerArgs) (loggerLevels, error) {
	if a.LoggerName == "" {
		return loggerLevels{LoggerLevels: s.opts.Logs.All()}, nil
	}
	p, err := s.opts.Logs.Levels(a.LoggerName)
	if err != nil {
		return loggerLevels{}, s.unknownLogger(a.LoggerName)
	}
	return loggerLevels{LoggerLevels: map[string]logging.LevelPair{a.LoggerName: p}}, nil
}

// setLoggerLevel changes the levels of one logger, or of all; plugin
// processes get the change before the call returns.
func (s *Service) setLoggerLevel(_ context.Context, a setLoggerArgs) (empty, error) {
	if a.LogLevel == nil && a.DisplayLevel == nil {
		return empty{}, jsonrpc.InvalidParams("logLevel and displayLevel are both omitted: give at least one")
	}
	logLevel, err := parseLevel("logLevel", a.LogLevel)
	if err != nil {
		return empty{}, err
	}
	displayLevel, err := parseLevel("displayLevel", a.DisplayLevel)
	if err != nil {
		return empty{}, err
	}
	if a.LoggerName != "" {
		if _, err := s.opts.Logs.Levels(a.LoggerName); err != nil {
			return empty{}, s.unknownLogger(a.LoggerName)
		}
	}
	if err := s.opts.Logs.SetLevels(a.LoggerName, logLevel, displayLevel); err != nil {
		return empty{}, err
	}
	name := a.LoggerName
	if name == "" {
		name = "all loggers"
	}
	s.log.Info("logger levels changed", "logger", name, "logLevel", deref(a.LogLevel), "displayLevel", deref(a.DisplayLevel))
	return empty{}, nil
}

// unknownLogger is the error for a logger name the registry does not hold.
func (s *Service) unknownLogger(name string) error {
	return jsonrpc.InvalidParams("\"loggerName\": unknown logger %q (the loggers are %s)", name, strings.Join(s.opts.Logs.Names(), ", "))
}

// parseLevel reads an optional level param; nil stays nil.
func parseLevel(param string, s *string) (*loglevel.Level, error) {
	if s == nil {
		return nil, nil
	}
	l, err := loglevel.Parse(*s)
	if err != nil {
		return nil, jsonrpc.InvalidParams("%q: %v", param, err)
	}
	return &l, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
