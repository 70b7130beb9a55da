"""syncopate.runtime"""
